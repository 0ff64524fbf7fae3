"""The task library's rescan: a running server sees a task made (or changed) after it started.

Real notebooks in real folders: a new notebook appears, a changed one reloads, a broken one is
reported once while the others keep loading, a gone or broken-since one keeps its task, a
duplicate id in a second folder is refused, and a rescan comes at most once per interval.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from conftest import server_config
from nbcells import code, md, stdout

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

pytestmark = pytest.mark.fast
SKIPPED = "cibench-lab: skipped task"


def task(title: str, answer: str = "1") -> dict:
    """A two-step task notebook in CIBench's format, titled ``title`` (its cibench_lab metadata)."""
    cells = [
        md("Load x."),
        code("x = 1"),
        md("Print x."),
        code(f"print({answer})", [stdout(f"{answer}\n")]),
    ]
    meta = {"cibench_lab": {"schema_version": 1, "title": title}}
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def write(root: Path, task_id: str, notebook: dict | str) -> Path:
    """The notebook of ``task_id`` under ``root``, written whole (as ``tasks new`` writes it)."""
    path = root / f"{task_id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = notebook if isinstance(notebook, str) else json.dumps(notebook)
    partial = path.with_name(f".{path.name}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
    return path


def skipped(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(SKIPPED)]


def test_a_new_notebook_appears_and_a_changed_one_reloads(tmp_path):
    root = tmp_path / "tasks"
    write(root, "classroom/pandas/first", task("First"))
    lib = TaskLibrary.load([root])
    lib.rescan_interval = 0
    assert sorted(lib.tasks) == ["classroom/pandas/first"]
    assert lib.rescan() == []  # nothing changed: nothing parsed again
    first = lib.tasks["classroom/pandas/first"]

    write(root, "classroom/pandas/second", task("Second"))
    assert lib.rescan() == ["classroom/pandas/second"]
    assert lib.get("classroom/pandas/second").title == "Second"
    assert lib.tasks["classroom/pandas/first"] is first  # unchanged: the same task

    write(root, "classroom/pandas/first", task("First, revised", answer="2"))
    assert lib.rescan() == ["classroom/pandas/first"]
    assert lib.get("classroom/pandas/first").title == "First, revised"
    # an attempt begun on the first version keeps playing it; a new one gets the revision
    assert lib.version("classroom/pandas/first", first.content_hash) is first
    revised = lib.get("classroom/pandas/first")
    assert revised.content_hash != first.content_hash
    assert lib.version("classroom/pandas/first", revised.content_hash) is revised
    assert lib.version("classroom/pandas/first", "0" * 64) is revised  # not kept: the loaded one


def test_a_broken_notebook_is_reported_once_and_the_others_keep_loading(tmp_path, caplog):
    root = tmp_path / "tasks"
    write(root, "classroom/pandas/good", task("Good"))
    lib = TaskLibrary.load([root])
    lib.rescan_interval = 0
    caplog.set_level(logging.WARNING, logger="cibench_lab.tasks.library")

    write(root, "classroom/pandas/broken", "{ not json")
    write(root, "classroom/pandas/later", task("Later"))
    assert lib.rescan() == ["classroom/pandas/later"]
    assert lib.rescan() == [] and lib.rescan() == []
    (line,) = skipped(caplog)
    assert "classroom/pandas/broken.ipynb" in line, line
    assert sorted(lib.tasks) == ["classroom/pandas/good", "classroom/pandas/later"]

    write(root, "classroom/pandas/broken", task("Fixed"))  # fixed: it loads at the next rescan
    assert lib.rescan() == ["classroom/pandas/broken"]
    assert lib.get("classroom/pandas/broken").title == "Fixed"
    assert len(skipped(caplog)) == 1


def test_a_task_stays_when_its_notebook_breaks_or_goes(tmp_path, caplog):
    """An attempt may still reference a task: a rescan never drops one."""
    root = tmp_path / "tasks"
    write(root, "classroom/pandas/kept", task("Kept"))
    gone = write(root, "classroom/pandas/gone", task("Gone"))
    lib = TaskLibrary.load([root])
    lib.rescan_interval = 0
    caplog.set_level(logging.WARNING, logger="cibench_lab.tasks.library")

    write(root, "classroom/pandas/kept", '{"cells": "x"}')
    gone.unlink()
    assert lib.rescan() == []
    assert lib.get("classroom/pandas/kept").title == "Kept"
    assert lib.get("classroom/pandas/gone").title == "Gone"
    (line,) = skipped(caplog)
    assert "kept.ipynb" in line and "not a notebook" in line, line


def test_a_folder_made_after_the_start_is_served_once_it_exists(tmp_path):
    """``watch`` serves a task folder that does not exist yet (a class's, before its first task)."""
    lib = TaskLibrary.load([builtin_dir()])
    builtin = sorted(lib.tasks)
    lib.rescan_interval = 0
    later = tmp_path / "class" / "tasks"
    lib.watch(later)
    assert lib.problems == [] and sorted(lib.tasks) == builtin
    write(later, "classroom/pandas/made", task("Made"))
    assert lib.find("classroom/pandas/made").title == "Made"  # a lookup of an unknown id rescans


def test_a_duplicate_id_in_a_second_folder_is_refused_and_the_first_kept(tmp_path, caplog):
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, "classroom/pandas/same", task("One"))
    two.mkdir()
    lib = TaskLibrary.load([one, two])
    lib.rescan_interval = 0
    caplog.set_level(logging.WARNING, logger="cibench_lab.tasks.library")
    write(two, "classroom/pandas/same", task("Two"))
    assert lib.rescan() == [] and lib.rescan() == []
    (line,) = skipped(caplog)
    assert "duplicate task id 'classroom/pandas/same'" in line and str(two) in line, line
    assert lib.get("classroom/pandas/same").title == "One"


def test_a_rescan_comes_at_most_once_per_interval(tmp_path):
    root = tmp_path / "tasks"
    root.mkdir()
    lib = TaskLibrary.load([root])
    lib.rescan_interval = 3600.0  # longer than this test
    assert lib.rescan() == []  # the first rescan runs (none since the load)
    write(root, "classroom/pandas/soon", task("Soon"))
    assert lib.rescan() == [] and lib.find("classroom/pandas/soon") is None
    lib.rescan_interval = 0
    assert lib.find("classroom/pandas/soon").title == "Soon"


@pytest.fixture
def jp_server_config(tmp_path):
    """No task_dirs: the built-in tasks, and the new_tasks_dir a class shares (not there yet)."""
    return server_config(tmp_path, [], new_tasks_dir=str(tmp_path / "class" / "tasks"))


async def test_a_running_server_serves_a_task_written_into_its_new_tasks_dir(jp_serverapp, api, tmp_path):
    """Empty task_dirs with new_tasks_dir set: the built-in tasks plus that folder's, a task
    written there (by another teacher's server) listed without a restart."""
    services = jp_serverapp.web_app.settings["cibench_lab"]
    builtin = sorted(TaskLibrary.load([builtin_dir()]).tasks)
    code_, listed = await api("GET", "tasks")
    assert code_ == 200 and sorted(t["id"] for t in listed) == builtin
    write(tmp_path / "class" / "tasks", "classroom/pandas/shared", task("Shared"))
    services.library.rescan_interval = 0  # the next call rescans (3 s apart by default)
    code_, listed = await api("GET", "tasks")
    assert sorted(t["id"] for t in listed) == sorted([*builtin, "classroom/pandas/shared"])
    code_, one = await api("GET", "tasks/classroom/pandas/shared")
    assert code_ == 200 and one["title"] == "Shared", one
