"""`cibench-lab tasks new`: a teacher's solution notebook becomes a task that plays to 100, and every
refusal names its cell."""

from __future__ import annotations

import json

import nbformat
import pytest
from newtask import GOOD, INTRO, LOAD, PLOT, write_solution

from cibench_lab.cli import main
from cibench_lab.tasks.lint import lint_task
from cibench_lab.tasks.solution import read_solution
from cibench_lab.tasks.stepkind import infer

TASK_ID = "classroom/pandas/bills_week"


def new(capsys, *argv) -> tuple[int, str, str]:
    rc = main(["tasks", "new", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_a_good_solution_is_checked_then_written_and_plays_to_100(tmp_path, capsys):
    from cibench_lab.tasks.library import TaskLibrary

    nb, into = write_solution(tmp_path / "teacher", GOOD), tmp_path / "tasks"
    rc, out, err = new(capsys, nb, "--into", into, "--check")
    assert rc == 0, err
    rows = [line.split(None, 4) for line in out.splitlines()[2:6]]
    assert [r[:4] for r in rows] == [
        ["1", "3", "exec", "inferred"],
        ["2", "5", "num", "inferred"],
        ["3", "7", "text", "tagged"],
        ["4", "9", "vis", "inferred"],
    ]
    assert rows[1][4] == "3.25" and rows[3][4] == "a figure (title, x_label, y_label, figsize, chart_type)"
    assert "check only: nothing written" in out and not into.exists()

    rc, out, err = new(capsys, nb, "--into", into)
    assert rc == 0, err
    assert f"written {TASK_ID} -> {into / 'classroom/pandas/bills_week.ipynb'}" in out
    assert (into / "datasources/data/bills.csv").read_text() == (nb.parent / "data/bills.csv").read_text()
    lib = TaskLibrary.load([into])
    assert not lib.problems
    task = lib.get(TASK_ID)
    assert (task.title, task.language, task.data_files) == ("Bills by day", "en", ("data/bills.csv",))
    assert [s.kind for s in task.steps] == ["exec", "num", "text", "vis"]
    assert task.steps[3].plot_elements == ("title", "x_label", "y_label", "figsize", "chart_type")
    assert task.steps[0].modules == ("pandas", "matplotlib") and task.libraries == ("pandas", "matplotlib")
    assert lint_task(task) == []
    assert main(["--task-dir", str(into), "tasks", "lint", str(into)]) == 0

    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    argv = ["--task-dir", str(into), "--db", db, "run", "--player", "reference", "--tasks", TASK_ID]
    assert main([*argv, "--run", "t", "--no-progress"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith(TASK_ID))
    assert line.split()[1:] == ["100.0"] * 5

    rc, out, _ = new(capsys, nb, "--into", into)  # the same again: the task is rewritten, byte for byte
    assert rc == 0 and f"updated {TASK_ID}" in out
    assert (into / "classroom/pandas/bills_week.ipynb").read_bytes() == task.path.read_bytes()


def test_a_step_printing_two_numbers_and_a_step_that_raises_are_refused(tmp_path, capsys):
    cells = [
        LOAD,
        ("Print the smallest and the largest `tip`.", "print(df['tip'].min(), df['tip'].max())"),
        ("Print the mean of `tipp`.", "print(df['tipp'].mean())"),
        ("Print the number of rows.", "print(len(df))"),
    ]
    into = tmp_path / "tasks"
    rc, out, err = new(capsys, write_solution(tmp_path / "t", cells), "--into", into)
    assert rc == 2
    lines = err.splitlines()
    tag = "(tag it cibench:text if they are one answer)"
    assert f"cell 4: step 2 prints two numbers; a num step prints one {tag}" in lines
    assert "cell 6: step 3 raises KeyError: 'tipp'" in lines
    answers = [line.split(None, 4)[-1] for line in out.splitlines()[2:]]
    assert answers == ["nothing", "refused", "refused", "not run"]  # step 4: after the one that raised
    assert "2 refused: nothing written" in lines and not into.exists()


# --------------------------------------------------------------------------- refused before any kernel


@pytest.mark.fast
def test_an_import_the_kernel_environment_lacks_is_refused(tmp_path, capsys):
    cells = [
        LOAD,
        ("Fit a booster.", "import xgboost\nfrom sklearn import tree\nmodel = xgboost.XGBClassifier()"),
    ]
    rc, _, err = new(capsys, write_solution(tmp_path / "t", cells), "--into", tmp_path / "tasks")
    assert rc == 2
    assert "cell 4: step 2 imports `xgboost`, which the kernel environment lacks" in err.splitlines()
    assert "sklearn" not in err


@pytest.mark.fast
def test_cells_that_do_not_pair_are_refused_each_by_its_cell(tmp_path, capsys):
    cells = [
        INTRO,
        LOAD,
        "Print the mean of `tip`.",  # cell 4: no code after it
        ("Print the number of rows.", "print(len(df))"),
        ("code", "print(df.shape)"),  # cell 7: a second code cell
        "Draw the totals.",  # cell 8: the last cell, an instruction
    ]
    rc, _, err = new(capsys, write_solution(tmp_path / "t", cells), "--into", tmp_path / "tasks")
    assert rc == 2
    assert err.splitlines()[:3] == [
        "cell 4: an instruction with no code cell after it",
        "cell 7: a second code cell after step 2's instruction: a step has one code cell "
        "(merge them, or give this one an instruction of its own)",
        "cell 8: an instruction with no code cell after it",
    ]


@pytest.mark.fast
def test_a_plot_element_the_instruction_does_not_give_is_refused(tmp_path, capsys):
    untitled = ("Draw a bar chart of the sum of `total` per day with pandas `.plot`.", PLOT[1])
    rc, _, err = new(
        capsys, write_solution(tmp_path / "t", [INTRO, LOAD, untitled]), "--into", tmp_path / "x"
    )
    assert rc == 2
    flagged = [line for line in err.splitlines() if line.startswith("cell 5: step 2: ")]
    assert any("title set by the solution (ax.set_title)" in line for line in flagged), err
    assert any("figsize" in line for line in flagged) and any("x_label" in line for line in flagged)
    assert any("y_label" in line for line in flagged)


@pytest.mark.fast
def test_the_library_is_the_one_used_most_or_refused_naming_the_choices(tmp_path, capsys):
    nb = write_solution(tmp_path / "t", [("Print two and two.", "print(2 + 2)")])
    rc, _, err = new(capsys, nb, "--into", tmp_path / "x")
    assert rc == 2 and "the solution uses none of the task libraries (lightgbm, matplotlib, nltk," in err
    rc, _, err = new(capsys, nb, "--into", tmp_path / "x", "--lib", "xgboost")
    assert rc == 2 and "--lib xgboost: not one of lightgbm, matplotlib" in err


@pytest.mark.fast
def test_a_data_file_another_task_uses_is_not_changed(tmp_path, capsys):
    into = tmp_path / "tasks"
    other = into / "classroom" / "pandas" / "other.ipynb"
    other.parent.mkdir(parents=True)
    meta = {"cibench_lab": {"schema_version": 1, "data_files": ["data/bills.csv"]}}
    other.write_text(json.dumps({"cells": [], "metadata": meta, "nbformat": 4, "nbformat_minor": 5}))
    (into / "datasources" / "data").mkdir(parents=True)
    (into / "datasources" / "data" / "bills.csv").write_text("day,total\n")
    rc, _, err = new(capsys, write_solution(tmp_path / "t", GOOD), "--into", into)
    assert rc == 2
    assert "data/bills.csv: " in err and "used by classroom/pandas/other; rename yours" in err
    assert (into / "datasources" / "data" / "bills.csv").read_text() == "day,total\n"


# --------------------------------------------------------------------------- the pieces


@pytest.mark.fast
def test_the_pairing_rule_reads_intro_title_steps_and_tags(tmp_path):
    nb = nbformat.read(str(write_solution(tmp_path, GOOD, data=False)), as_version=4)
    solution = read_solution(nb, tmp_path / "bills_week.ipynb")
    assert (solution.title, solution.refusals) == ("Bills by day", [])
    assert solution.intro.startswith("A week of restaurant bills")
    assert [(s.instruction_cell, s.code_cell, s.tag) for s in solution.steps] == [
        (2, 3, None),
        (4, 5, None),
        (6, 7, "text"),
        (8, 9, None),
    ]
    nb.cells[2].metadata["tags"] = ["cibench:number"]
    (refusal,) = read_solution(nb, tmp_path / "x.ipynb").refusals
    assert refusal.line().startswith("cell 3: unknown tag `cibench:number` (a step's kind tag is one of")


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


FIGURE = {
    "output_type": "display_data",
    "data": {"image/png": "iVBOR", "text/plain": "<Figure>"},
    "metadata": {},
}


@pytest.mark.fast
@pytest.mark.parametrize(
    ("tag", "outputs", "kind", "problem"),
    [
        (None, [], "exec", None),
        (None, [_stream("3.25\n")], "num", None),
        (None, [_stream("Sun\n")], "text", None),
        ("text", [_stream("3.25\n")], "text", None),
        (None, [FIGURE], "vis", None),
        (None, [_stream("1.5 5.0\n")], None, "prints two numbers; a num step prints one"),
        ("num", [_stream("1.5, 5.0\n")], None, "prints two numbers; a num step prints one"),
        ("num", [], None, "prints nothing; a num step prints one number"),
        (None, [_stream("a\nb\nc\n")], None, "prints three lines; a step's answer is one number"),
        (None, [FIGURE, FIGURE], None, "shows two figures; a vis step shows one"),
        (None, [FIGURE, _stream("x\n")], None, "shows a figure and prints 'x'"),
        ("exec", [_stream("4\n")], None, "prints '4'; an exec step prints nothing"),
        (
            None,
            [_stream("1\n"), {"output_type": "execute_result", "data": {"text/plain": "2"}}],
            None,
            "prints two",
        ),
        (
            None,
            [{"output_type": "stream", "name": "stderr", "text": "Warn"}],
            None,
            "writes to stderr ('Warn')",
        ),
    ],
)
def test_the_kind_is_the_tags_or_what_the_solution_showed(tag, outputs, kind, problem):
    inferred = infer(tag, outputs)
    assert inferred.kind == kind
    assert (inferred.problem is None) if problem is None else inferred.problem.startswith(problem), inferred
