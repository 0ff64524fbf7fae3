#!/usr/bin/env python
"""People beside a model, end to end: `bash scripts/demo-compare OUTDIR` (this file is what it runs).

Builds a throwaway results database in OUTDIR (``OUTDIR/results.sqlite``, replaced on every run) over a
small task library it writes there (``OUTDIR/tasks``: four tasks whose steps print a number):

* the study ``demo`` (model-parity, the four tasks as a fixed list), recorded by the engine at the
  first consent; two simulated participants, alice and bob, enrol (their plans recorded) and play
  through the engine's Attempts API — every run graded for real against the task's reference — as
  tests/studies/test_report_compare.py's people do; their working times are set on the rows (simulated:
  nobody waits).  alice finishes pandas and nltk and quits matplotlib; bob finishes pandas and quits
  nltk; nobody reaches sklearn;
* the run ``model``: `cibench-lab run --player openai:scripted` over our OpenAI-compatible test server
  (tests/openai_server.py, real HTTP, the real ``openai`` client) in real kernels — it plays pandas,
  nltk and matplotlib, passing four of their seven steps;

(its own summary: OUTDIR/run.txt), then runs `cibench-lab report --compare humans:demo model --profile fair` and writes OUTDIR/table.txt
(the table, also printed), OUTDIR/compare.csv, OUTDIR/compare.json and the plots OUTDIR/libraries.png
and OUTDIR/time_vs_difficulty.png.  About half a minute (the model's kernels).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # our OpenAI-compatible test server (standard library only)

STUDY = "demo"
KEY = "sk-demo-compare"
PANDAS, NLTK = "cibench_template/pandas/cmp_a", "cibench_template/nltk/cmp_b"
PLOT, SKLEARN = "cibench_template/matplotlib/cmp_c", "cibench_template/sklearn/cmp_d"
#: each task's steps print these numbers (the reference)
ANSWERS = {PANDAS: ["11", "22", "33"], NLTK: ["44", "55"], PLOT: ["66", "77"], SKLEARN: ["88", "99"]}
#: per person and task in plan order: each step's printed answers and how it settles (None: the third
#: run settles it, model-parity's turn cap); ``QUIT`` ends the attempt unfinished after those steps
QUIT = "quit"
PLAYS = {
    "alice": [
        (PANDAS, [(["11"], "next"), (["0", "22"], "next"), (["0", "0", "0"], None)]),
        (NLTK, [(["44"], "next"), (["55"], "next")]),
        (PLOT, [(["66"], "next"), QUIT]),
    ],
    "bob": [
        (PANDAS, [(["11"], "next"), (["0"], "gave_up"), (["33"], "next")]),
        (NLTK, [(["0"], "next"), QUIT]),
    ],
}
#: working seconds per step (the step's settle time after it opened), per person and task
SECONDS = {
    ("alice", PANDAS): [25, 70, 140],
    ("alice", NLTK): [40, 55],
    ("alice", PLOT): [35],
    ("bob", PANDAS): [45, 120, 95],
    ("bob", NLTK): [80],
}
#: the model's code per step, tasks in id order (matplotlib, nltk, pandas); sklearn is not run
MODEL = ["print(66)", "print(77)", "print(0)", "print(55)", "print(11)", "print(22)", "print(0)"]
DEFINITION = {
    "title": "Demo: people beside a model",
    "protocol": "model-parity",
    "consent": "We record your code and your working time.",
    "tasks": [{"task": task} for task in ANSWERS],
}
T0 = dt.datetime(2025, 3, 1, 9, 0, 0)


def write_tasks(root: Path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    for task_id, answers in ANSWERS.items():
        cells = []
        for i, answer in enumerate(answers):
            cells.append(new_markdown_cell(f"Step {i + 1}: print the number {answer}."))
            cells.append(
                new_code_cell(f"print({answer})", outputs=[new_output("stream", text=answer + "\n")])
            )
        nb = new_notebook(cells=cells)
        nb.metadata["step_types"] = ["num"] * len(answers)
        nb.metadata["cibench_lab"] = {"schema_version": 1, "title": task_id.rsplit("/")[-1], "language": "en"}
        path = root / f"{task_id}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


def people(db: str, root: Path) -> None:
    """The study recorded at alice's consent; alice and bob enrol and play (PLAYS), their times set."""
    from cibench_lab.play.attempt import Attempts
    from cibench_lab.store import Store
    from cibench_lab.studies.definition import parse_study
    from cibench_lab.studies.enrolment import enrol
    from cibench_lab.tasks.library import TaskLibrary

    lib = TaskLibrary.load([root])
    if lib.problems:
        raise SystemExit(f"error: the demo's tasks did not load: {lib.problems}")
    store = Store(db)
    study = parse_study(DEFINITION, "scripts/demo-compare", STUDY)
    attempts = Attempts(store, lib)
    start = T0
    for who, plan in PLAYS.items():
        enrol(store, lib, study, who, {})
        for task_id, script in plan:
            attempt_id = _play(attempts, study, lib.get(task_id), who, script)
            start = _set_times(store, attempt_id, SECONDS[who, task_id], start)
    store.dispose()


def _play(attempts, study, task, who: str, script: list) -> str:
    from cibench_lab.benchmarks import benchmark_of
    from cibench_lab.grading.turn import TurnOutput
    from cibench_lab.kernels.environment import attempt_environment
    from cibench_lab.play.attempt import NewAttempt, StudyAttempt
    from cibench_lab.record.quit import quit_attempt

    play = StudyAttempt(study.id, study.protocol, study.settings)
    new = NewAttempt(
        task,
        "e2e",
        "human",
        who,
        study.settings,
        attempt_environment(task, benchmark_of(task).profile_versions()),
        study=play,
    )
    attempt_id = attempts.create(new)
    for step, entry in enumerate(script):
        if entry == QUIT:
            quit_attempt(attempts, attempt_id, who)
            break
        answers, settle = entry
        for answer in answers:
            printed = [{"output_type": "stream", "name": "stdout", "text": answer + "\n"}]
            attempts.record_turn(attempt_id, step, TurnOutput(f"print({answer})", printed))
        if settle:
            attempts.settle(attempt_id, step, settle)
    return attempt_id


def _set_times(store, attempt_id: str, seconds: list[int], start: dt.datetime) -> dt.datetime:
    """Step i opens where step i-1 settled and settles ``seconds[i]`` later; its runs are 1 s each,
    5 s apart, from 5 s after it opened.  The next attempt starts a minute after this one."""
    from sqlalchemy import select

    from cibench_lab.store.tables import StepRow, Turn

    opened = start
    with store.session() as s:
        for step, spent in enumerate(seconds):
            row = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
            row.opened_at, row.settled_at = opened, opened + dt.timedelta(seconds=spent)
            for turn in s.scalars(select(Turn).where(Turn.attempt_id == attempt_id, Turn.step == step)):
                turn.started_at = opened + dt.timedelta(seconds=5 * turn.number)
                turn.finished_at = turn.started_at + dt.timedelta(seconds=1)
            opened = row.settled_at
    return opened + dt.timedelta(minutes=1)


def model_run(db: str, root: Path, out: Path) -> None:
    """`cibench-lab run` with the scripted model over the test server, one reply per step."""
    from openai_server import ScriptedServer

    from cibench_lab.cli import main

    config = out / "models.json"
    config.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01, "request_timeout": 30}}}))
    replies = [
        {"reply": f"Thought: print it.\nAction: IPythonInterpreter\nAction Input: ```python\n{code}\n```"}
        for code in MODEL
    ]
    tasks = [PLOT, NLTK, PANDAS]
    server = ScriptedServer(replies, model="scripted", key=KEY)
    log = io.StringIO()
    with _environ(OPENAI_API_KEY=KEY, OPENAI_BASE_URL=None), server, contextlib.redirect_stdout(log):
        rc = main([
            "--task-dir", str(root), "--db", db, "run", "--player", "openai:scripted", "--model-config",
            str(config), "--base-url", server.base_url, "--tasks", *tasks, "--run", "model", "--no-progress",
        ])  # fmt: skip
    (out / "run.txt").write_text(log.getvalue(), encoding="utf-8")
    server.check()
    if rc != 0:
        raise SystemExit(f"error: the model run failed (exit {rc})")


@contextlib.contextmanager
def _environ(**values: str | None):
    """The environment with ``values`` set (None: unset), restored afterwards."""
    saved = {name: os.environ.get(name) for name in values}
    try:
        _set_environ(values)
        yield
    finally:
        _set_environ(saved)


def _set_environ(values: dict[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def report(db: str, root: Path, out: Path) -> dict[str, Path]:
    """`report --compare` as a table (returned and written), CSV, JSON and the plots."""
    from cibench_lab.cli import main

    paths = {"table": out / "table.txt", "csv": out / "compare.csv", "json": out / "compare.json"}
    base = ["--task-dir", str(root), "--db", db, "report", "--compare", f"humans:{STUDY}", "model"]
    for form, path in paths.items():
        extra = ["--plots", str(out)] if form == "table" else []
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            rc = main([*base, "--profile", "fair", "--format", form, *extra])
        if rc != 0:
            raise SystemExit(f"error: report --compare --format {form} failed (exit {rc})")
        path.write_text(text.getvalue(), encoding="utf-8")
    paths["libraries"], paths["time"] = out / "libraries.png", out / "time_vs_difficulty.png"
    return paths


def run(outdir: str | Path) -> dict[str, Path]:
    """The demo into ``outdir`` (created); the paths it wrote."""
    out = Path(outdir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    for old in ("results.sqlite", "results.sqlite-wal", "results.sqlite-shm"):
        (out / old).unlink(missing_ok=True)
    db = f"sqlite:///{out / 'results.sqlite'}"
    root = out / "tasks"
    write_tasks(root)
    people(db, root)
    model_run(db, root, out)
    return report(db, root, out)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        print("usage: bash scripts/demo-compare OUTDIR", file=sys.stderr)
        return 2
    paths = run(argv[0])
    print(paths["table"].read_text(encoding="utf-8"), end="")
    print("wrote: " + ", ".join(str(p) for p in paths.values()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
