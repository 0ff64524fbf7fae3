"""No task is a copy of another: tasks of different splits or libraries never share their code cells.

The only tasks allowed to share them are a template task and its Chinese translation (same library
and name, splits ``cibench_template`` and ``cibench_template_chinese``).  The generation split holds
tasks written for it, never a template task with its ``step_types`` removed.  Nothing is run.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from cibench_lab.tasks.library import builtin_dir

pytestmark = pytest.mark.fast

TRANSLATION_PAIR = {"cibench_template", "cibench_template_chinese"}


def _code_cells(path: Path) -> tuple[str, ...]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return tuple("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def copies(root: Path) -> list[list[str]]:
    """Groups of task ids (``split/lib/name``) under ``root`` that share their code cells and are not
    one English template task with its Chinese translation."""
    by_code: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for path in sorted(root.glob("cibench_*/*/*.ipynb")):
        rel = path.relative_to(root).with_suffix("")
        by_code[_code_cells(path)].append(rel.as_posix())
    groups = []
    for ids in by_code.values():
        splits = {i.split("/")[0] for i in ids}
        names = {i.split("/", 1)[1] for i in ids}
        if len(ids) > 1 and not (len(ids) == 2 and splits == TRANSLATION_PAIR and len(names) == 1):
            groups.append(sorted(ids))
    return sorted(groups)


def _write(root: Path, rel: str, code: list[str]) -> None:
    cells = [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in code]
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")


def test_no_two_built_in_tasks_of_different_splits_or_libraries_share_their_code():
    assert copies(builtin_dir()) == []


def test_a_copied_task_is_found_and_a_translation_pair_is_not(tmp_path):
    _write(tmp_path, "cibench_template/pandas/a.ipynb", ["x = 1", "print(x)"])
    _write(tmp_path, "cibench_template_chinese/pandas/a.ipynb", ["x = 1", "print(x)"])
    _write(tmp_path, "cibench_template/scipy/b.ipynb", ["y = 2"])
    assert copies(tmp_path) == []
    _write(tmp_path, "cibench_generation/pandas/a.ipynb", ["x = 1", "print(x)"])
    _write(tmp_path, "cibench_template/seaborn/c.ipynb", ["y = 2"])
    _write(tmp_path, "cibench_template_chinese/scipy/d.ipynb", ["y = 2"])
    assert copies(tmp_path) == [
        ["cibench_generation/pandas/a", "cibench_template/pandas/a", "cibench_template_chinese/pandas/a"],
        ["cibench_template/scipy/b", "cibench_template/seaborn/c", "cibench_template_chinese/scipy/d"],
    ]
