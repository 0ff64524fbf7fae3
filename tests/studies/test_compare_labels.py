"""The comparison's library rows are labelled by the library's name (grading/compare.py:
``lib_labels``), with the split only where two splits hold a library of that name; the CSV and the
terminal table show the same labels."""

from __future__ import annotations

import pytest

from cibench_lab.cli.compare import csv_rows
from cibench_lab.grading.compare import Played, RunInfo, StepResult, build, lib_labels

pytestmark = pytest.mark.fast

GEN_PANDAS = "cibench_generation/pandas/a"
TPL_PANDAS = "cibench_template/pandas/b"
GEN_SCIPY = "cibench_generation/scipy/c"


def played(who: str, group: str, task: str, passed: bool) -> Played:
    return Played(who, group, task, "done", {}, [StepResult("exec", passed, None, None, 1, 10.0)])


def report(tasks: list[str]) -> dict:
    humans = [played(p, "humans", t, p == "p1") for p in ("p1", "p2") for t in tasks]
    runs = {"m": [played("m", "m", t, True) for t in tasks]}
    return build("pilot", "cibench", [RunInfo("m", "openai:x", "e2e")], humans, runs, {}, False)


def test_a_library_one_split_holds_is_named_by_its_name():
    rep = report([GEN_PANDAS, GEN_SCIPY])
    assert [(r["lib"], r["split"]) for r in rep["libraries"]] == [
        ("pandas", "cibench_generation"),
        ("scipy", "cibench_generation"),
    ]
    assert {r["lib"] for r in rep["steps"]} == {"pandas", "scipy"}
    library_csv = [row for row in csv_rows(rep) if row[1] == "library"]
    assert sorted({row[3] for row in library_csv}) == ["pandas", "scipy"]


def test_the_split_stays_where_two_splits_hold_a_library_of_that_name():
    assert lib_labels([GEN_PANDAS, TPL_PANDAS, GEN_SCIPY]) == {
        "cibench_generation/pandas": "cibench_generation/pandas",
        "cibench_template/pandas": "cibench_template/pandas",
        "cibench_generation/scipy": "scipy",
    }
    rep = report([GEN_PANDAS, TPL_PANDAS, GEN_SCIPY])
    labels = [r["lib"] for r in rep["libraries"]]
    assert labels == ["cibench_generation/pandas", "scipy", "cibench_template/pandas"]
    assert rep["libraries"][0]["humans"]["steps"] == 2  # each split's pandas is its own row
