"""`cibench-lab tasks import` and `tasks list`: the official folder or zip into a task directory."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from test_task_loader import GOOD, official_folder, write

from cibench_lab.cli import main
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

pytestmark = pytest.mark.fast


@pytest.fixture(autouse=True)
def jupyter_data(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))


def zipped(folder: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted(folder.rglob("*")):
            zf.write(f, f.relative_to(folder.parent))
    return archive


def test_import_folder_is_idempotent_and_reports_rejections(tmp_path, capsys):
    src = official_folder(tmp_path / "cibench_dataset")
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert "imported   cibench_template/pandas/exp01" in out
    assert "imported   cibench_generation/pandas/gen01" in out
    assert "rejected" in out and "broken.ipynb: not valid notebook JSON" in out
    assert "3 imported, 0 updated, 0 unchanged, 1 rejected, 1 data files written" in out
    assert (into / "datasources" / "data" / "numbers.csv").read_text() == "a\n1\n"
    assert not list(into.rglob("*checkpoint*"))
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    assert "0 imported, 0 updated, 3 unchanged, 1 rejected, 0 data files written" in capsys.readouterr().out
    lib = TaskLibrary.load([into])
    assert len(lib.tasks) == 3 and not lib.problems


def test_import_zip_updates_changed_tasks_and_refuses_builtin_ids(tmp_path, capsys):
    src = official_folder(tmp_path / "src" / "cibench_dataset")
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(zipped(src, tmp_path / "a.zip")), "--into", str(into)]) == 0
    assert "3 imported" in capsys.readouterr().out
    changed = json.loads(json.dumps(GOOD))
    changed["cells"][2]["source"] = "Print x, please."
    write(src, "cibench_generation/pandas/gen01.ipynb", changed)
    write(src, "cibench_template/pandas/penguins_raw_tidy.ipynb", GOOD)  # a built-in id
    main(["tasks", "import", str(zipped(src, tmp_path / "b.zip")), "--into", str(into)])
    out = capsys.readouterr().out
    assert "updated    cibench_generation/pandas/gen01" in out
    assert (
        "penguins_raw_tidy.ipynb: task id 'cibench_template/pandas/penguins_raw_tidy' is already served"
        in out
    )
    assert not (into / "cibench_template" / "pandas" / "penguins_raw_tidy.ipynb").exists()


def test_import_of_something_else_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("hi")
    assert main(["tasks", "import", str(tmp_path / "empty"), "--into", str(tmp_path / "t")]) == 2
    assert "no CIBench layout found" in capsys.readouterr().err


def test_list_filters_and_json(tmp_path, capsys):
    src = official_folder(tmp_path / "cibench_dataset")
    dirs = ["--task-dir", str(builtin_dir()), "--task-dir", str(src)]
    assert main([*dirs, "tasks", "list", "--json", "--lang", "zh", "--lib", "pandas"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["language"] == "zh" and r["lib"] == "pandas" for r in rows)
    assert "cibench_template_chinese/pandas/exp01" in {r["id"] for r in rows}
    assert main([*dirs, "tasks", "list", "--split", "cibench_generation"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("cibench_generation/") for line in lines)
