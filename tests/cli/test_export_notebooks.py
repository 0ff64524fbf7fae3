"""`cibench-lab export --format notebooks`: one valid nbformat 4 transcript per attempt holding every
run's code with its recorded outputs, the grades with the kept turn marked, exploration runs, notes
and quits (data: tests/exportdb.py); and, with a real kernel, the outputs a headless run recorded."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from pathlib import Path

import nbformat
import pytest
from exportdb import EXPLORATION, NOTE, build
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from rules_task import REFERENCE_PNG, attempts_for, start, stdout
from sqlalchemy import select

from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.oracle import record_reference
from cibench_lab.play.settings import PlaySettings
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.store.pseudonym import pseudonym
from cibench_lab.store.tables import Turn
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.plot import FIGURE_MIME

ORACLE_OUT = "the reference printed this"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    built = build(tmp_path_factory.mktemp("export-nb"))
    attempts = built.attempts  # and an oracle attempt: each settled step's reference ran after it
    task = attempts.library.get("cibench_template/pandas/rules")
    new = NewAttempt(task, "oracle", "human", "dave", PlaySettings(), {})
    built.ids["dave"] = dave = attempts.create(new)
    attempts.record_turn(dave, 0, TurnOutput("print('alpha')", [stdout("alpha")]))
    attempts.settle(dave, 0, "next")
    ref = TurnOutput(task.steps[0].code, [stdout(ORACLE_OUT)])
    record_reference(attempts, dave, 0, ref)
    return built


def export(built, folder: Path, *options: str, task_dir: Path | None = None) -> int:
    args = ["--db", built.db, "--task-dir", str(task_dir or built.root), "export", "--format", "notebooks"]
    return main([*args, *options, str(folder)])


@pytest.fixture(scope="module")
def notebooks(built, tmp_path_factory) -> dict[str, nbformat.NotebookNode]:
    folder = tmp_path_factory.mktemp("nb")
    assert export(built, folder) == 0
    found = {}
    for who, attempt_id in built.ids.items():
        (path,) = folder.glob(f"*-{attempt_id}.ipynb")
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
        found[who] = nb
    assert len(list(folder.iterdir())) == len(built.ids)
    return found


def role(nb, name: str) -> list:
    return [c for c in nb.cells if c.metadata.get("cibench_lab", {}).get("role") == name]


def recorded(store: Store, attempt_id: str) -> list[Turn]:
    with store.session() as s:
        q = select(Turn).where(Turn.attempt_id == attempt_id).order_by(Turn.step, Turn.number)
        return list(s.scalars(q))


@pytest.mark.fast
def test_each_turn_is_a_code_cell_with_its_recorded_outputs(notebooks, built):
    nb = notebooks["alice"]
    cells = role(nb, "turn")
    turns = recorded(built.attempts.store, built.ids["alice"])
    assert [c.source for c in cells] == [t.code for t in turns]
    assert [c.execution_count for c in cells] == [1, 2, 3, 4, 5]
    for cell, turn in zip(cells, turns, strict=True):
        want = [{**o, "data": {m: v for m, v in o["data"].items() if m != FIGURE_MIME}} if "data" in o else o
                for o in turn.outputs]  # fmt: skip
        assert [dict(o) for o in cell.outputs] == want
    assert cells[0].outputs[0].output_type == "error" and cells[0].outputs[0].ename == "NameError"
    assert cells[3].outputs[0].data["image/png"] and FIGURE_MIME not in cells[3].outputs[0].data
    assert cells[4].outputs[0].execution_count == 7  # the kernel's own count stays in the result
    assert [c.metadata["tags"] for c in cells[:2]] == [[], ["kept-cibench", "kept-fair"]]


@pytest.mark.fast
def test_the_title_and_grades_say_who_what_and_how_it_settled(notebooks, built):
    nb = notebooks["alice"]
    title = nb.cells[0].source
    assert pseudonym(built.salt, "alice") in title and "pilot · protocol model-parity" in title
    assert "6 min 11 s (net of pauses)" in title and "grade_rule settling" in title
    assert not any("alice" in c.source for c in nb.cells)
    steps = role(nb, "instruction")
    kinds = ["text", "num", "vis", "exec"]
    assert [c.source.splitlines()[0] for c in steps] == [f"## Step {i} ({k})" for i, k in enumerate(kinds, 1)]
    assert steps[0].source.endswith("Print the words.")
    grades = role(nb, "grade")
    assert "**Step 2: gave up**" in grades[1].source and "working time 5 min 11 s" in grades[1].source
    first = grades[0].source
    assert "| 2 | [2] | 09:00:30 | 09:00:31 | ok | 1.00 passed **(kept)** |" in first
    assert "| **kept** |  |  |  |  | 1.00 passed (run 2) |" in first


@pytest.mark.fast
def test_exploration_runs_notes_and_quitting(notebooks):
    nb = notebooks["bob"]
    (explore,) = [c for c in role(nb, "exploration") if c.cell_type == "code"]
    assert explore.source == EXPLORATION and explore.metadata["jupyter"]["source_hidden"] is True
    assert explore.outputs == [] and explore.metadata["tags"] == ["exploration-run"]
    grades = role(nb, "grade")
    assert f"**Note:** {NOTE}" in grades[0].source
    assert "not settled** (the participant quit)" in grades[1].source and "pause" in grades[1].source
    assert nb.cells[-1].source == "*Steps 3–4 were not reached.*"
    assert "| status | quit |" in nb.cells[0].source


@pytest.mark.fast
def test_an_oracle_attempt_shows_each_reference_run(notebooks):
    nb = notebooks["dave"]
    (ref,) = role(nb, "oracle")
    assert ref.outputs[0].text == ORACLE_OUT + "\n" and ref.metadata["tags"] == ["oracle-reference"]
    assert ref.execution_count == 2  # after the step's one run


@pytest.mark.fast
def test_real_names_and_a_task_gone_from_the_library(built, tmp_path):
    empty = tmp_path / "no-tasks"
    empty.mkdir()
    assert export(built, tmp_path / "nb", "--participant", "alice", "--real-names", task_dir=empty) == 0
    (path,) = (tmp_path / "nb").iterdir()
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    assert "| participant | alice |" in nb.cells[0].source
    assert "The task is not in the library" in nb.cells[0].source
    assert role(nb, "instruction")[0].source.endswith("*(not available)*")


def write_plot_task(root: Path) -> str:
    """A task whose reference prints and plots, for a headless run in a real kernel."""
    plot = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"
    figure = new_output("display_data", data={"image/png": REFERENCE_PNG, "text/plain": "<Figure>"})
    cells = [
        new_markdown_cell("Print six times seven."),
        new_code_cell("print(6 * 7)", outputs=[stdout("42")]),
    ]
    cells += [new_markdown_cell("Plot 1, 3, 2."), new_code_cell(plot, outputs=[figure])]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["num", "vis"]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Plot", "language": "en"}
    path = root / "cibench_template" / "matplotlib" / "export_plot.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True)
    return "cibench_template/matplotlib/export_plot"


def test_a_headless_runs_transcript_holds_what_the_kernel_printed_and_drew(tmp_path):
    task_id = write_plot_task(tmp_path)
    lib = TaskLibrary.load([tmp_path])
    assert not lib.problems, lib.problems
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    attempts = Attempts(Store(db), lib)
    (attempt_id,) = asyncio.run(
        run_tasks(attempts, [lib.get(task_id)], RunSpec(ReferencePlayer(), "e2e", "ref"))
    )
    out = tmp_path / "out"
    assert main(["--db", db, "--task-dir", str(tmp_path), "export", "--format", "notebooks", str(out)]) == 0
    (path,) = out.iterdir()
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    printed, drawn = role(nb, "turn")
    assert [o.get("text") for o in printed.outputs] == ["42\n"]
    (image,) = [o for o in drawn.outputs if "image/png" in o.get("data", {})]
    turn = recorded(attempts.store, attempt_id)[1]
    png = next(o["data"]["image/png"] for o in turn.outputs if "image/png" in o.get("data", {}))
    assert image.data["image/png"] == png and png != REFERENCE_PNG  # the kernel's own plot
    assert main(["--db", db, "export", "--format", "csv", str(tmp_path / "csv")]) == 0
    digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
    assert digest in (tmp_path / "csv" / "turns.csv").read_text()


@pytest.mark.fast
def test_a_transcript_that_would_not_validate_is_skipped_naming_it(tmp_path, capsys):
    attempts = attempts_for(tmp_path)
    good = start(attempts)
    attempts.record_turn(good, 0, TurnOutput("print('a')", [stdout("a")]))
    bad = start(attempts)
    with attempts.store.session() as s:  # a recorded output nbformat has no schema for
        s.add(Turn(attempt_id=bad, step=0, number=0, code="x", outputs=[{"output_type": "stream"}]))
    db = attempts.store.url
    args = ["--db", db, "--task-dir", str(tmp_path), "export", "--format", "notebooks", str(tmp_path / "nb")]
    assert main(args) == 0
    out = capsys.readouterr()
    assert f"warning: attempt {bad}: not valid nbformat (" in out.err and "skipped" in out.err
    assert [p.name for p in (tmp_path / "nb").iterdir()] == [f"rules-{good}.ipynb"]
    assert "exported 1 transcript notebook to" in out.out
