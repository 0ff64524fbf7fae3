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


def test_links_out_of_the_source_and_folder_links_are_rejected_by_name(tmp_path, capsys):
    src = official_folder(tmp_path / "cibench_dataset")
    secret = tmp_path / "outside" / "passwd"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0\n")
    data = src / "datasources" / "data"
    (data / "passwd.csv").symlink_to(secret)
    (data / "copy.csv").symlink_to(data / "numbers.csv")  # stays inside: its bytes are copied
    (data / "etc").symlink_to(secret.parent, target_is_directory=True)
    (src / "cibench_generation" / "pandas" / "linked.ipynb").symlink_to(write(tmp_path, "x/t.ipynb", GOOD))
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert f"passwd.csv: a symbolic link leading out of the import source (to {secret})" in out
    assert "linked.ipynb: a symbolic link leading out of the import source" in out
    assert "etc: a symbolic link to a folder: not followed" in out
    assert "3 imported, 0 updated, 0 unchanged, 4 rejected, 2 data files written" in out
    copied = sorted(p.relative_to(into).as_posix() for p in (into / "datasources").rglob("*"))
    assert copied == ["datasources/data", "datasources/data/copy.csv", "datasources/data/numbers.csv"]
    assert not any(p.is_symlink() for p in into.rglob("*"))
    assert (into / "datasources" / "data" / "copy.csv").read_text() == "a\n1\n"


def test_a_linked_datasources_folder_is_not_walked(tmp_path, capsys):
    src = tmp_path / "cibench_dataset"
    write(src, "cibench_generation/pandas/gen01.ipynb", GOOD)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "key.pem").write_text("secret")
    (src / "datasources").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(src), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert "datasources: a symbolic link to a folder: not followed" in out and "key.pem" not in out
    assert not (into / "datasources").exists()


def test_a_zip_with_a_symlink_member_is_refused_naming_it(tmp_path, capsys):
    src = official_folder(tmp_path / "src" / "cibench_dataset")
    archive = zipped(src, tmp_path / "a.zip")
    link = zipfile.ZipInfo("cibench_dataset/datasources/data/passwd.csv")
    link.external_attr = 0o120777 << 16  # S_IFLNK: what `zip --symlinks` stores
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr(link, "/etc/passwd")
    into = tmp_path / "tasks"
    assert main(["tasks", "import", str(archive), "--into", str(into)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: {archive}: zip member 'cibench_dataset/datasources/data/passwd.csv' is a symbolic link "
        "(archives of tasks hold none)"
    )
    assert not into.exists()


@pytest.mark.parametrize(
    "version,shown", [(99, "nbformat 99"), (3, "nbformat 3"), (None, "no nbformat version")]
)
def test_a_notebook_of_another_format_version_is_rejected_naming_it(tmp_path, capsys, version, shown):
    src = official_folder(tmp_path / "cibench_dataset")
    other = {k: v for k, v in GOOD.items() if k != "nbformat"}
    if version is not None:
        other["nbformat"] = version
    path = write(src, "cibench_generation/pandas/other.ipynb", other)
    assert main(["tasks", "import", str(src), "--into", str(tmp_path / "tasks")]) == 0
    out = capsys.readouterr().out
    assert f"{path}: {shown}: only nbformat 4 notebooks can be tasks" in out
    assert not (tmp_path / "tasks" / "cibench_generation" / "pandas" / "other.ipynb").exists()
