"""The attempt notebook the server writes: named after the task's split and language, trusted."""

from __future__ import annotations

import json
from pathlib import PurePosixPath

import pytest

from cibench_lab.engine.workspace import notebook_name
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

SAME_NAME = "pandas/economics_unemployment"  # one task in three splits


@pytest.mark.fast
def test_same_named_tasks_get_different_notebook_names():
    library = TaskLibrary.load([builtin_dir()])
    splits = ("cibench_template", "cibench_template_chinese", "cibench_generation")
    names = [notebook_name(library.get(f"{split}/{SAME_NAME}")) for split in splits]
    assert names == [
        "economics_unemployment.template-en.ipynb",
        "economics_unemployment.template-zh.ipynb",
        "economics_unemployment.generation-en.ipynb",
    ]


async def test_the_notebook_opens_trusted_under_its_name(start_attempt, jp_fetch):
    b = await start_attempt(task_id=f"cibench_template_chinese/{SAME_NAME}")
    path = b.attempt["notebook_path"]
    assert PurePosixPath(path).name == "economics_unemployment.template-zh.ipynb"
    resp = await jp_fetch("api", "contents", *path.split("/"))  # what JupyterLab loads
    cells = json.loads(resp.body)["content"]["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(c["metadata"].get("trusted") is True for c in code), code
