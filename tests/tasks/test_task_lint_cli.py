"""`tasks lint`, the build's refusal of a flagged notebook and the import's warnings (no kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from lintnb import BASE_CODE, BASE_EN, notebook

from cibench_lab.cli import main
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.lintstore import store_path

pytestmark = pytest.mark.fast


def write_task(root: Path, nb: dict, rel="cibench_template/pandas/plot01.ipynb") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


FLAGGED = notebook(BASE_EN, BASE_CODE.format(extra="ax.set_title('Totals')"))
CLEAN = notebook(BASE_EN, BASE_CODE.format(extra=""))


def test_tasks_lint_prints_one_line_per_flag_and_a_summary(tmp_path, capsys):
    path = write_task(tmp_path, FLAGGED)
    assert main(["tasks", "lint", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        "plot01.ipynb:3: step 2: title set by the reference (ax.set_title) but not named by the instruction"
    )
    assert "1 flags in 1 steps of 1 tasks (1 tasks linted, 0 did not load)" in out
    assert "by kind: title 1" in out and "by library: pandas 1" in out
    write_task(tmp_path, CLEAN)
    assert main(["tasks", "lint", str(tmp_path)]) == 0
    assert "0 flags in 0 steps of 0 tasks (1 tasks linted" in capsys.readouterr().out


def test_tasks_lint_by_id_pattern_and_its_errors(tmp_path, capsys):
    write_task(tmp_path, FLAGGED)
    assert main(["--task-dir", str(tmp_path), "tasks", "lint", "cibench_template/pandas/*", "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)["flags"]
    assert [(r["task"], r["step"], r["kind"]) for r in rows] == [
        ("cibench_template/pandas/plot01", 1, "title")
    ]
    assert main(["tasks", "lint", str(tmp_path / "nope.ipynb")]) == 2
    assert capsys.readouterr().err.strip() == f"error: no such file or folder: {tmp_path / 'nope.ipynb'}"
    assert main(["--task-dir", str(tmp_path), "tasks", "lint", "no/such/*"]) == 2
    assert "error: no task matches no/such/*" in capsys.readouterr().err


def test_tasks_lint_reports_a_notebook_that_does_not_load(tmp_path, capsys):
    write_task(tmp_path, FLAGGED)
    (tmp_path / "cibench_template" / "pandas" / "broken.ipynb").write_text("{ nope")
    assert main(["tasks", "lint", str(tmp_path)]) == 1
    assert "broken.ipynb: does not load: not valid notebook JSON" in capsys.readouterr().out


def template_table(tmp_path: Path, instruction: str) -> Path:
    tdir = tmp_path / "templates"
    tdir.mkdir()
    nb = nbformat.from_dict(notebook(instruction, BASE_CODE.format(extra="ax.set_title('{{name}}')")))
    nb.metadata["kernelspec"] = {
        "name": "cibench-lab",
        "display_name": "Python 3 (CIBench)",
        "language": "python",
    }
    nb.metadata["modules"] = ["pandas", "matplotlib"]
    nb.cells[3].outputs = []
    nbformat.write(nb, tdir / "bars.ipynb")
    table = {
        "template": "bars.ipynb",
        "lib": "pandas",
        "instances": [{"stem": "bars_x", "params": {"name": "X"}}],
    }
    (tdir / "bars.datasets.json").write_text(json.dumps(table))
    return tdir / "bars.datasets.json"


def test_tasks_build_refuses_a_flagged_notebook_and_writes_nothing(tmp_path, capsys):
    table = template_table(tmp_path, BASE_EN)
    into = tmp_path / "tasks"
    assert main(["tasks", "build", str(table), "--into", str(into), "--no-execute"]) == 2
    err = capsys.readouterr().err
    assert "bars_x.ipynb:3: step 2: title set by the reference" in err and "(nothing written)" in err
    assert not into.exists()


def test_tasks_build_writes_a_notebook_whose_instruction_says_it(tmp_path, capsys):
    table = template_table(tmp_path, BASE_EN + " Title it `{{name}}`.")
    into = tmp_path / "tasks"
    assert main(["tasks", "build", str(table), "--into", str(into), "--no-execute"]) == 0
    assert (into / "cibench_template" / "pandas" / "bars_x.ipynb").is_file()


def test_the_reference_build_refuses_before_starting_a_kernel(tmp_path):
    from cibench_lab.authoring.build import BuildError, build

    nb = nbformat.from_dict(FLAGGED)
    nb.metadata["kernelspec"] = {
        "name": "cibench-lab",
        "display_name": "Python 3 (CIBench)",
        "language": "python",
    }
    nb.metadata["modules"] = ["pandas", "matplotlib"]
    path = tmp_path / "cibench_template" / "pandas" / "plot01.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    before = path.read_bytes()
    with pytest.raises(BuildError, match=r"plot01\.ipynb:3: step 2: title set by the reference"):
        build(path, tmp_path / "no-kernelspec", timeout=1, write=True)
    assert path.read_bytes() == before


@pytest.fixture
def jupyter_data(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))


def test_tasks_import_only_warns_and_stores_the_flags_beside_the_task(tmp_path, capsys, jupyter_data):
    src = tmp_path / "cibench_dataset"
    original = write_task(src, FLAGGED)
    write_task(src, CLEAN, "cibench_template/pandas/plot02.ipynb")
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert "lint       cibench_template/pandas/plot01.ipynb:3: step 2: flags title" in out
    assert "plot02.ipynb" not in out
    assert "2 imported, 0 updated, 0 unchanged, 0 rejected" in out
    assert "1 tasks flagged by the lint (imported anyway; the flags are kept in" in out
    dest = into / "cibench_template" / "pandas" / "plot01.ipynb"
    assert dest.read_bytes() == original.read_bytes()  # imported unchanged
    stored = json.loads(store_path(into).read_text())["tasks"]
    assert list(stored) == ["cibench_template/pandas/plot01"]  # the clean task has no entry
    assert [(f["cell"], f["step"], f["kind"]) for f in stored["cibench_template/pandas/plot01"]] == [
        (3, 1, "title")
    ]
    lib = TaskLibrary.load([into])
    assert sorted(lib.tasks) == ["cibench_template/pandas/plot01", "cibench_template/pandas/plot02"]
    assert not lib.problems  # the store is not a task
    before = store_path(into).read_bytes()
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    assert "0 imported, 0 updated, 2 unchanged" in capsys.readouterr().out
    assert store_path(into).read_bytes() == before

    assert main(["--task-dir", str(into), "tasks", "list"]) == 0
    listing = capsys.readouterr().out
    assert "cibench_template/pandas/plot01" in listing and "[lint: 1 flags]" in listing
    assert listing.count("[lint:") == 1
    assert main(["--task-dir", str(into), "tasks", "show", "cibench_template/pandas/plot01"]) == 0
    assert "lint: 1 flags\n" in capsys.readouterr().out


def test_a_fixed_task_loses_its_stored_flags_on_the_next_import(tmp_path, capsys, jupyter_data):
    src, into = tmp_path / "src", tmp_path / "tasks"
    write_task(src, FLAGGED)
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    fixed = notebook(BASE_EN + " Title it `Totals`.", BASE_CODE.format(extra="ax.set_title('Totals')"))
    write_task(src, fixed)
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    assert "1 updated" in capsys.readouterr().out
    assert json.loads(store_path(into).read_text())["tasks"] == {}


def test_tasks_lint_takes_overlapping_paths_once(tmp_path, capsys):
    path = write_task(tmp_path, FLAGGED)
    assert main(["tasks", "lint", str(tmp_path), str(path)]) == 1
    out = capsys.readouterr().out
    assert "1 flags in 1 steps of 1 tasks (1 tasks linted, 0 did not load)" in out


def test_tasks_lint_takes_a_split_or_library_folder_notebook_by_notebook(tmp_path, capsys):
    write_task(tmp_path, FLAGGED)
    write_task(tmp_path, CLEAN, "cibench_template_chinese/pandas/plot01.ipynb")
    for folder in ("cibench_template", "cibench_template/pandas"):
        assert main(["tasks", "lint", str(tmp_path / folder)]) == 1
        assert "1 flags in 1 steps of 1 tasks (1 tasks linted, 0 did not load)" in capsys.readouterr().out
    assert main(["tasks", "lint", str(tmp_path / "cibench_template_chinese")]) == 0
    capsys.readouterr()
