"""A comparison whose figures crowd: test_report_compare's people and tasks, plus a nine-step task
(``C``) that both people and the run miss at every step in the same working time — nine steps tied
at one difficulty and one median time, the hardest, at the right edge of the time-vs-difficulty
scatter — and a run named like a real one (``ref-e2e``). Recorded through the engine's Attempts API
with no kernel (each turn's output given), as test_study_compare_server's model run is. For the
results view's layout (tests/ui/test_results_layout_ui.py) and the CLI's plots (test_compare_plots.py).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from test_report_compare import ANSWERS, STUDY, T0, A, B, out, people, play, set_times, write_tasks

from cibench_lab.benchmarks import benchmark_of
from cibench_lab.kernels.environment import attempt_environment
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store
from cibench_lab.store.tables import Run
from cibench_lab.tasks.library import TaskLibrary

C = "cibench_template/sklearn/cmp_many"
TIED = 9  # C's steps: every one missed by everybody, in the same time
RUN = "ref-e2e"
#: the run's printed answers per task: pandas #1 and #2 right, the rest wrong
RUN_ANSWERS = {A: ["11", "22", "0"], B: ["0", "0"], C: ["0"] * TIED}


def write_tie_tasks(root: Path) -> list[str]:
    """test_report_compare's two tasks and C; the study's task ids."""
    write_tasks(root)
    cells = []
    for i in range(TIED):
        cells.append(new_markdown_cell(f"Step {i + 1}: print the number {100 + i}."))
        cells.append(new_code_cell(f"print({100 + i})", outputs=[new_output("stream", text=f"{100 + i}\n")]))
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["num"] * TIED
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "cmp_many", "language": "en"}
    path = root / f"{C}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return [*ANSWERS, C]


def record(db: str, root: Path) -> None:
    """The people (alice and bob play C too, missing every step in 30 s) and the run ``ref-e2e``."""
    lib = TaskLibrary.load([root])
    store = Store(db)
    try:
        people(store, lib)
        attempts = Attempts(store, lib)
        for i, person in enumerate(("alice", "bob")):
            attempt_id = play(attempts, lib.get(C), person, [(["0"], "gave_up")] * TIED)
            set_times(store, attempt_id, [(1, 30)] * TIED, T0 + dt.timedelta(hours=10 + i))
        record_run(store, lib)
    finally:
        store.dispose()


def record_run(store: Store, lib: TaskLibrary) -> None:
    """The run: each reply runs without an error, so each step settles at its first turn."""
    with store.session() as s:
        run = Run(name=RUN, player="openai:scripted", mode="e2e", config={})
        s.add(run)
        s.flush()
        run_id = run.id
    attempts = Attempts(store, lib)
    for task_id, answers in sorted(RUN_ANSWERS.items()):
        task = lib.get(task_id)
        new = NewAttempt(
            task,
            "e2e",
            "openai:scripted",
            "model",
            PlaySettings(),
            attempt_environment(task, benchmark_of(task).profile_versions()),
            run_id=run_id,
        )
        attempt_id = attempts.create(new)
        for step, answer in enumerate(answers):
            attempts.record_turn(attempt_id, step, out(answer))


def study_definition(tasks: list[str]) -> dict:
    return {
        "title": "Pilot",
        "protocol": "model-parity",
        "consent": "We record your code.",
        "tasks": [{"task": task} for task in tasks],
    }


__all__ = ["C", "RUN", "STUDY", "TIED", "record", "study_definition", "write_tie_tasks"]
