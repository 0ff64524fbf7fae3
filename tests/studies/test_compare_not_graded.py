"""People beside models where a step's grade measured nothing (a Qwen visualization step without a
judge's verdict): it is neither passed nor missed — out of every pass rate and of the difficulty fit,
counted apart as ``not_graded`` in the JSON, the table and the CSV."""

from __future__ import annotations

import csv
import io

import pytest

from cibench_lab.cli.compare import emit
from cibench_lab.grading.compare import NOT_GRADED_NOTE, Played, RunInfo, StepResult, build
from cibench_lab.grading.qwen.lab import METRICS
from cibench_lab.store.tables import StepRow
from cibench_lab.studies.comparison import _result

TASK = "qwen_visualization/matplotlib/q1"
VIS = {"metric": METRICS["vis"], "score": None, "passed": False}


def _steps(first_passed: bool, plot_graded: bool) -> list[StepResult]:
    """An exec step, then a plot step: graded (missed) or not graded."""
    plot = StepResult("vis", False, 0.0 if plot_graded else None, "passed", 1, 5.0, plot_graded)
    return [StepResult("exec", first_passed, None, "passed", 1, 5.0), plot]


def _report(run_plot_graded: bool = False) -> dict:
    humans = [
        Played("p-1", "humans", TASK, "done", {}, _steps(True, False)),
        Played("p-2", "humans", TASK, "done", {}, _steps(False, False)),
    ]
    played = {"model": [Played("model", "model", TASK, "done", {}, _steps(True, run_plot_graded))]}
    return build("s", "cibench", [RunInfo("model", "openai:m", "e2e")], humans, played, {}, False)


@pytest.mark.fast
def test_a_stored_plot_grade_without_a_verdict_reads_as_not_graded():
    row = StepRow(index=1, kind="vis", outcome="passed")
    assert not _result(row, VIS, 1, None).graded
    assert _result(row, {**VIS, "score": 0.0}, 1, None).graded  # a verdict of 0 is a miss
    assert _result(row, {"metric": "exec", "passed": False}, 1, None).graded


@pytest.mark.fast
def test_not_graded_steps_are_out_of_the_rates_and_the_fit_and_counted_apart():
    rep = _report()
    first, plot = rep["steps"]
    assert (first["humans"]["passed"], first["humans"]["steps"], first["humans"]["rate"]) == (1, 2, 50.0)
    assert plot["humans"] | {"time": None} == {
        "n": 2, "passed": 0, "steps": 0, "rate": None, "ci": [None, None], "score": None, "quit": 0,
        "not_graded": 2, "time": None,
    }  # fmt: skip
    assert plot["humans"]["time"]["median"] == 5.0  # the time worked on it still counts
    assert plot["runs"]["model"]["graded"] is False and plot["runs"]["model"]["passed"] is False
    (task,) = rep["tasks"]
    assert (task["humans"]["rate"], task["humans"]["steps"], task["humans"]["not_graded"]) == (50.0, 2, 2)
    assert task["runs"]["model"] | {"score": None} == {
        "tasks": 1, "steps": 1, "passed": 1, "rate": 100.0, "score": None, "not_graded": 1,
    }  # fmt: skip
    assert (plot["difficulty"], plot["rank"]) == (None, None)
    assert [item["step"] for item in rep["difficulty"]["items"]] == [0]
    assert NOT_GRADED_NOTE in rep["notes"]


@pytest.mark.fast
def test_a_graded_plot_step_is_a_miss_and_no_note_says_otherwise():
    rep = _report(run_plot_graded=True)
    plot = rep["steps"][1]
    assert plot["runs"]["model"]["graded"] is True
    assert rep["tasks"][0]["runs"]["model"]["rate"] == 50.0  # 1 of 2
    assert plot["rank"] is not None  # the run's miss is a response
    humans_only = build(
        "s", "cibench", [], [Played("p", "humans", TASK, "done", {}, _steps(True, True))], {}, {}, False
    )
    assert NOT_GRADED_NOTE not in humans_only["notes"]


@pytest.mark.fast
def test_the_table_and_the_csv_say_not_graded(capsys):
    rep = _report()
    emit(rep, "table", None)
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if "#2 vis" in ln]
    assert line.count("not graded") == 2  # the people's pass rate and the run's result
    emit(rep, "csv", None)
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by = {(r["section"], r["step"], r["who"]): r for r in rows}
    people, model = by["step", "1", "humans"], by["step", "1", "model"]
    assert (people["steps"], people["rate"], people["not_graded"]) == ("0", "", "2")
    assert (model["passed"], model["steps"], model["rate"], model["not_graded"]) == ("0", "0", "", "1")
    task = by["task", "", "model"]
    assert (task["passed"], task["steps"], task["rate"], task["not_graded"]) == ("1", "1", "100.0", "1")
