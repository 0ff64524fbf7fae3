"""The Qwen table's 95% CIs over items, from scores built in-process (no kernels, no judge).

Hand-computed bounds: a cell whose items are all alike resamples to itself; 1 right of 2 resamples
to 0, 50 or 100 (1/4, 1/2, 1/4), so its 2.5th/97.5th percentiles are 0 and 100; 1 right of 4
resamples to 75 or more 5.1% of the time but to 100 only 0.4%, so its bounds are 0 and 75.
"""

from __future__ import annotations

import csv
import io

import pytest

from cibench_lab.cli.qwen_report import CSV_HEADER, csv_rows, entry, render
from cibench_lab.grading.qwen.execrate import rates
from cibench_lab.grading.qwen.intervals import share_with_ci
from cibench_lab.grading.qwen.score import Accuracy, ModelScore

pytestmark = pytest.mark.fast


def _accuracy(*right: bool, graded: bool = True) -> Accuracy:
    acc = Accuracy(graded=graded)
    for r in right:
        acc.add(r)
    return acc


def _score(judged: bool = True) -> ModelScore:
    # visualization: 1 of 2 executable; general: 1 of 2 (missing code counts); math: no item
    tags = ["visualization", "visualization", "general", "general"]
    executable, missing = [True, False, True, False], [False, False, False, True]
    return ModelScore(
        "q",
        executable=rates(tags, executable, missing),
        math=_accuracy(True, False, False, False),
        vis={"hard": _accuracy(True, True, True, graded=judged), "easy": _accuracy(False)},
    )


def _report(score: ModelScore, general_comparable: bool = False) -> dict:
    return {"profile": "qwen", "runs": [entry(score, "qwen", "r1", "openai:q", 2, general_comparable)]}


def test_shares_and_their_bounds_by_hand():
    assert share_with_ci([]) == {"n": 0, "value": None, "ci_lo": None, "ci_hi": None}
    assert share_with_ci([True] * 3) == {"n": 3, "value": 100.0, "ci_lo": 100.0, "ci_hi": 100.0}
    assert share_with_ci([False] * 2) == {"n": 2, "value": 0.0, "ci_lo": 0.0, "ci_hi": 0.0}
    assert share_with_ci([True, False]) == {"n": 2, "value": 50.0, "ci_lo": 0.0, "ci_hi": 100.0}
    assert share_with_ci([True, False, False, False]) == {"n": 4, "value": 25.0, "ci_lo": 0.0, "ci_hi": 75.0}


def test_each_cell_in_the_json_with_its_items():
    cells = _report(_score())["runs"][0]["json"]["cells"]
    assert cells["executable"] == {
        "math": {"n": 0, "value": None, "ci_lo": None, "ci_hi": None},
        "visualization": {"n": 2, "value": 50.0, "ci_lo": 0.0, "ci_hi": 100.0},
        "general": {"n": 2, "value": 50.0, "ci_lo": 0.0, "ci_hi": 100.0},
    }
    assert cells["accuracy"] == {
        "math": {"n": 4, "value": 25.0, "ci_lo": 0.0, "ci_hi": 75.0},
        "visualization-hard": {"n": 3, "value": 100.0, "ci_lo": 100.0, "ci_hi": 100.0},
        "visualization-easy": {"n": 1, "value": 0.0, "ci_lo": 0.0, "ci_hi": 0.0},
    }


def test_the_table_shows_values_with_bounds_and_keeps_its_marks():
    text = render(_report(_score(judged=False)))
    row = next(line for line in text.splitlines() if line.replace(" ", "").startswith("|r1|"))
    assert [c.strip() for c in row.strip("|").split("|")] == [
        "r1",
        "—",
        "50.0 [0.0–100.0]",
        "50.0 [0.0–100.0] (not comparable)",
        "25.0 [0.0–75.0]",
        "not graded",
        "0.0 [0.0–0.0]",
    ]
    assert "95% CIs: percentile bootstrap over items (2,000 resamples, seed 0)" in text
    assert "not graded: no judge configured" in text
    # measured online: no mark
    assert "(not comparable)" not in render(_report(_score(), general_comparable=True)).split("items (")[0]


def test_csv_one_row_per_cell():
    out = io.StringIO()
    csv.writer(out).writerows(csv_rows(_report(_score(judged=False))))
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == CSV_HEADER
    got = [(r["section"], r["column"], r["n"], r["value"], r["ci_lo"], r["ci_hi"], r["note"]) for r in rows]
    assert got == [
        ("executable", "math", "0", "", "", "", ""),
        ("executable", "visualization", "2", "50.0", "0.0", "100.0", ""),
        ("executable", "general", "2", "50.0", "0.0", "100.0", "not comparable"),
        ("accuracy", "math", "4", "25.0", "0.0", "75.0", ""),
        ("accuracy", "visualization-hard", "3", "", "", "", "not graded"),
        ("accuracy", "visualization-easy", "1", "0.0", "0.0", "0.0", ""),
    ]
    assert {(r["profile"], r["run"], r["player"]) for r in rows} == {("qwen", "r1", "openai:q")}
