"""``report --plot`` on Qwen runs: the table's six cells as bars with their CIs (no kernel)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

from matplotlib.container import BarContainer  # noqa: E402

from cibench_lab.cli.qwen_plot import qwen_figure  # noqa: E402


def cell(value, lo=None, hi=None, n=1):
    return {"n": n, "value": value, "ci_lo": lo, "ci_hi": hi}


def run(name, protocol, cells):
    exec_cells, acc_cells = cells
    return {
        "json": {
            "run": name,
            "protocol": protocol,
            "original_protocol": protocol == "qwen-react",
            "cells": {
                "executable": dict(zip(("math", "visualization", "general"), exec_cells, strict=True)),
                "accuracy": dict(
                    zip(("math", "visualization-hard", "visualization-easy"), acc_cells, strict=True)
                ),
            },
        }
    }


def test_each_run_is_a_bar_per_cell_with_its_ci_and_a_missing_cell_has_none():
    report = {
        "profile": "qwen",
        "runs": [
            run(
                "a",
                "qwen-react",
                ([cell(80.0, 60.0, 100.0), cell(50.0), cell(100.0)], [cell(40.0), cell(None), cell(25.0)]),
            ),
            run(
                "b",
                "qwen-tools",
                ([cell(70.0), cell(20.0), cell(None)], [cell(30.0), cell(None), cell(75.0)]),
            ),
        ],
    }
    fig = qwen_figure(report)
    (ax,) = fig.axes
    a, b = [c for c in ax.containers if isinstance(c, BarContainer)]  # one per run
    assert [round(p.get_height(), 1) if not math.isnan(p.get_height()) else None for p in a] == [
        80.0,
        50.0,
        100.0,
        40.0,
        None,
        25.0,
    ]
    assert [p.get_height() for p in b][:2] == [70.0, 20.0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[4] == "acc Visualization-Hard\n(no value)"  # neither run has one
    assert "(no value)" not in labels[2]  # run a has General
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b (qwen-tools)"]
    assert ax.get_title() == "Qwen's Code Interpreter Benchmark · profile qwen"
