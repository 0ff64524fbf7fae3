"""The server's own writes into an attempt folder never go through a link left there (an attempt folder
made before the sandbox refused links may hold one at the notebook's path): the attempt notebook (a Qwen
task's too: built in memory with its prior turn, written once, signed as built, never read back) is
refused in one line and the file the link leads to is left as it was."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from conftest import PROBE_ID

from cibench_lab.play.workspace import attempt_notebook, write_notebook
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.links import LinkRefused

pytestmark = pytest.mark.fast

NAME = "leak_probe.template-en.ipynb"


@pytest.fixture
def scene(tmp_path, task_root):
    """An attempt folder whose notebook's name is a link (or a hard link) to a file of the server's."""
    secret = tmp_path / "secret.ipynb"
    secret.write_text("THE SERVER'S FILE\n")
    folder = tmp_path / "root" / "cibench-attempts" / "leak_probe-0123abcd"
    folder.mkdir(parents=True)
    task = TaskLibrary.load([task_root]).get(PROBE_ID)
    return task, folder, secret


def attempts(folder: Path, secret: Path, kind: str) -> Path:
    path = folder / NAME
    path.unlink(missing_ok=True)
    (os.symlink if kind == "symlink" else os.link)(secret, path)
    return path


@pytest.mark.parametrize("kind", ["symlink", "hard link"])
def test_no_server_write_goes_through_a_link(scene, kind):
    task, folder, secret = scene
    path = attempts(folder, secret, kind)
    with pytest.raises(LinkRefused) as refused:
        write_notebook(attempt_notebook(task, "0123abcd", "e2e"), path)
    assert NAME in str(refused.value) and "\n" not in str(refused.value)
    assert secret.read_text() == "THE SERVER'S FILE\n"


def test_no_server_write_goes_through_a_linked_attempt_folder(scene):
    task, folder, secret = scene
    linked = folder.parent / "linked-4567cdef"
    os.symlink(secret.parent, linked)
    with pytest.raises(LinkRefused):
        write_notebook(attempt_notebook(task, "0123abcd", "e2e"), linked / "secret.ipynb")
    assert secret.read_text() == "THE SERVER'S FILE\n"


def test_the_notebook_is_written_whole_where_there_is_no_link(scene):
    task, folder, _ = scene
    write_notebook(attempt_notebook(task, "0123abcd", "e2e"), folder / NAME)
    nb = nbformat.read(str(folder / NAME), as_version=4)
    assert nb.metadata["cibench_lab_attempt"]["attempt_id"] == "0123abcd"
    assert sorted(p.name for p in folder.iterdir()) == [NAME]  # no temporary file left
