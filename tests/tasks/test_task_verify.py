"""`tasks verify` and `tasks build`: references re-executed in fresh kernels, drift reported."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from cibench_lab.authoring.verify import verify_tasks
from cibench_lab.cli import main
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

#: One built-in task per library this suite's owner wrote (the fastest of each).
ONE_PER_LIBRARY = [
    "cibench_template/pandas/economics_unemployment",
    "cibench_template/matplotlib/mpg_figure_anatomy",
    "cibench_template/seaborn/penguins_distributions",
    "cibench_template/scipy/orange_growth_curves",
    "cibench_template_chinese/sklearn/iris_clustering",
]


def test_reference_replays_match_on_one_task_per_library():
    lib = TaskLibrary.load([builtin_dir()])
    tasks = [lib.get(task_id) for task_id in ONE_PER_LIBRARY]
    verdicts = asyncio.run(verify_tasks(tasks, jobs=2))
    for v in verdicts:
        assert v.ok, (v.task_id, v.error, v.drifts)
        assert not v.changed, (v.task_id, v.changed)
    assert all(v.peak_rss and v.peak_rss > 10 * 2**20 for v in verdicts)


def copy_task(task_id: str, dest: Path) -> Path:
    """A task directory holding one built-in task and its data."""
    task = TaskLibrary.load([builtin_dir()]).get(task_id)
    target = dest / f"{task_id}.ipynb"
    target.parent.mkdir(parents=True)
    shutil.copy(task.path, target)
    for rel in task.data_files:
        (dest / "datasources" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(task.datasources / rel, dest / "datasources" / rel)
    return target


def test_tampered_references_are_reported_as_drift(tmp_path, capsys):
    path = copy_task("cibench_template/pandas/economics_unemployment", tmp_path)
    nb = nbformat.read(path, as_version=4)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    code_cells[2].outputs[0].text = "1\n"  # step 3 (num): the true answer is 0
    code_cells[4].outputs[0].text = "99999.99\n"  # step 5 (num)
    nbformat.write(nb, path)
    argv = ["--task-dir", str(tmp_path), "tasks", "verify", "--no-progress"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "DRIFT cibench_template/pandas/economics_unemployment" in out
    assert "step 3 [num]: cibench:" in out and "step 5 [num]: fair:" in out
    assert "step 1 [" not in out
    assert "1 tasks, 14 steps: 2 drifted steps in 1 tasks" in out


def test_build_instantiates_and_records_references(tmp_path, capsys):
    tdir = tmp_path / "templates"
    tdir.mkdir()
    cells = [
        nbformat.v4.new_markdown_cell("Load `{{file}}` into `df`."),
        nbformat.v4.new_code_cell("import pandas as pd\n\ndf = pd.read_csv('{{file}}')"),
        nbformat.v4.new_markdown_cell("Print the sum of `{{column}}`."),
        nbformat.v4.new_code_cell("print(df['{{column}}'].sum())"),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata.update(
        kernelspec={"name": "cibench-lab", "display_name": "Python 3 (CIBench)", "language": "python"},
        step_types=["exec", "num"],
        modules=["pandas", "pandas"],
        cibench_lab={"schema_version": 1, "title": "Sum of {{column}}"},
    )
    nbformat.write(nb, tdir / "sums.ipynb")
    table = {
        "template": "sums.ipynb",
        "lib": "pandas",
        "variants": {"cibench_generation": "sums.ipynb"},
        "instances": [{"stem": "sum_a", "params": {"file": "data/n.csv", "column": "a"}}],
    }
    (tdir / "sums.datasets.json").write_text(json.dumps(table))
    into = tmp_path / "tasks"
    (into / "datasources" / "data").mkdir(parents=True)
    (into / "datasources" / "data" / "n.csv").write_text("a\n1\n2\n39\n")
    assert main(["tasks", "build", str(tdir / "sums.datasets.json"), "--into", str(into)]) == 0
    assert capsys.readouterr().out.count("built ") == 2
    lib = TaskLibrary.load([into])
    assert sorted(lib.tasks) == ["cibench_generation/pandas/sum_a", "cibench_template/pandas/sum_a"]
    assert lib.get("cibench_template/pandas/sum_a").steps[1].reference.value == "42\n"
    generation = lib.get("cibench_generation/pandas/sum_a")
    assert [s.kind for s in generation.steps] == [
        "exec",
        "general",
    ] and "step_types" not in generation.metadata


@pytest.mark.fast
@pytest.mark.parametrize("bad", [{"column": "a", "extra": 1}, {"file": "data/n.csv"}])
def test_build_refuses_unused_or_missing_parameters(tmp_path, capsys, bad):
    tdir = tmp_path / "t"
    tdir.mkdir()
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell("Sum {{column}}."), nbformat.v4.new_code_cell("print(1)")]
    )
    nbformat.write(nb, tdir / "x.ipynb")
    table = {"template": "x.ipynb", "lib": "pandas", "instances": [{"stem": "x", "params": bad}]}
    (tdir / "x.datasets.json").write_text(json.dumps(table))
    assert (
        main(["tasks", "build", str(tdir / "x.datasets.json"), "--into", str(tmp_path / "o"), "--no-execute"])
        == 2
    )
    err = capsys.readouterr().err
    assert "unused parameter" in err or "has no value in the datasets table" in err


def test_a_prelude_runs_before_the_first_step_and_each_step_keeps_a_digest_of_its_outputs(tmp_path):
    """bench/verify_all.py's second pass: the prelude changes the kernel before the steps run."""
    from nbcells import code, md, stdout

    cells = [
        md("Print the BLAS thread count."),
        code("import os\nprint(os.environ['OPENBLAS_NUM_THREADS'])", [stdout("1\n")]),
    ]
    nb = {"cells": cells, "metadata": {"step_types": ["num"]}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "cibench_template" / "python" / "threads.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    task = TaskLibrary.load([tmp_path]).get("cibench_template/python/threads")
    (plain,) = asyncio.run(verify_tasks([task]))
    (two,) = asyncio.run(verify_tasks([task], prelude="import os\nos.environ['OPENBLAS_NUM_THREADS'] = '2'"))
    assert plain.ok and not plain.changed and list(plain.digests) == [0]
    assert {d.step for d in two.drifts} == {0} and two.digests[0] != plain.digests[0]
