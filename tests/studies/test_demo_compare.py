"""`scripts/demo-compare OUTDIR`: its core (``run``) builds the demo's study, people and scripted model
run (real kernels: about half a minute) and writes the comparison's table, CSV, JSON and plots, each of
which parses: the table names the people and every task of the study, the CSV has report --compare's
columns, the JSON all four tasks, the plots are PNG images matplotlib reads."""

from __future__ import annotations

import csv
import importlib.machinery
import importlib.util
import json
from pathlib import Path

import pytest

from cibench_lab.cli.compare import HEAD

SCRIPT = Path(__file__).resolve().parent.parent.parent / "scripts" / "demo_compare.py"


def load_demo():
    loader = importlib.machinery.SourceFileLoader("demo_compare", str(SCRIPT))
    spec = importlib.util.spec_from_loader("demo_compare", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_demo_writes_a_table_csv_json_and_plots(tmp_path):
    import matplotlib.image

    demo = load_demo()
    paths = demo.run(tmp_path / "out")
    assert set(paths) == {"table", "csv", "json", "libraries", "time"}
    table = paths["table"].read_text(encoding="utf-8")
    assert "per step · humans:demo (2 people) vs model · profile fair" in table
    assert "1 person (+1 quit)" in table and "not played" in table and "1 people" not in table
    for task in demo.ANSWERS:
        assert task in table
    with paths["csv"].open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == HEAD and len(rows) > 1
    rep = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert [row["task"] for row in rep["tasks"]] == sorted(demo.ANSWERS)
    assert rep["people"] == 2 and [r["run"] for r in rep["runs"]] == ["model"]
    pandas = {row["step"]: row for row in rep["steps"] if row["task"] == demo.PANDAS}
    assert [pandas[i]["runs"]["model"]["passed"] for i in range(3)] == [True, True, False]
    assert [pandas[i]["humans"]["passed"] for i in range(3)] == [2, 1, 1]
    assert pandas[0]["humans"]["time"] == {"n": 2, "median": 35.0, "q1": 30.0, "q3": 40.0}  # 25 s, 45 s
    for key in ("libraries", "time"):
        image = matplotlib.image.imread(paths[key])
        assert image.ndim == 3 and image.shape[0] > 300 and image.shape[1] > 500, (key, image.shape)


@pytest.mark.fast
def test_bash_runs_the_demo_script_and_its_usage_writes_nothing(tmp_path):
    """`bash scripts/demo-compare` (the README's `bash scripts/…` habit) runs the demo in the checkout's
    .venv: without OUTDIR it prints the usage and exits 2, creating nothing where it was called."""
    import subprocess

    wrapper = SCRIPT.with_name("demo-compare")
    done = subprocess.run(["bash", str(wrapper)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "usage: bash scripts/demo-compare OUTDIR" in done.stderr
    assert list(tmp_path.iterdir()) == []
