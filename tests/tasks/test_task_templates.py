"""The built-in set: templates, their instances and translations stay in step, and the set is big enough."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.template import build_table

pytestmark = pytest.mark.fast

BUILTIN = builtin_dir()
TABLES = sorted((BUILTIN / "templates").glob("*/*.datasets.json"))
MINE = ("pandas", "matplotlib", "seaborn", "scipy", "sklearn")
GENERATION = ("pandas", "matplotlib", "seaborn", "scipy")


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source) for c in nb.cells]


def _meta(nb) -> dict:
    return {k: v for k, v in nb.metadata.items() if k not in ("language_info",)}


@pytest.fixture(scope="module")
def library() -> TaskLibrary:
    lib = TaskLibrary.load([BUILTIN])
    assert not lib.problems, [str(p) for p in lib.problems]
    return lib


@pytest.mark.parametrize("table", TABLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_built_tasks_are_up_to_date_with_their_template(table, tmp_path):
    for path in build_table(table, tmp_path, lint=False):  # the lint has its own test
        rel = path.relative_to(tmp_path)
        built = nbformat.read(BUILTIN / rel, as_version=4)
        fresh = nbformat.read(path, as_version=4)
        assert _cells(built) == _cells(fresh), f"{rel}: rebuild it with `cibench-lab tasks build {table}`"
        assert _meta(built) == _meta(fresh), rel


@pytest.mark.parametrize("table", TABLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_translations_keep_the_code_and_kinds(table):
    spec = json.loads(table.read_text(encoding="utf-8"))
    en = nbformat.read(table.parent / spec["template"], as_version=4)
    for other in (spec.get("translations") or {}).values():
        zh = nbformat.read(table.parent / other, as_version=4)
        assert [c.source for c in zh.cells if c.cell_type == "code"] == [
            c.source for c in en.cells if c.cell_type == "code"
        ]
        assert zh.metadata["step_types"] == en.metadata["step_types"]
        assert zh.metadata["modules"] == en.metadata["modules"]
    assert len(spec["instances"]) <= 3


@pytest.mark.parametrize("lib", MINE)
def test_each_library_has_enough_tasks_templates_and_variety(library, lib):
    tasks = library.select([f"cibench_template/{lib}/*"])
    assert len(tasks) >= 6
    templates = Counter(t.metadata["cibench_lab"].get("template", {}).get("name", t.stem) for t in tasks)
    assert len(templates) >= 2 and max(templates.values()) <= 3
    for task in tasks:
        assert len(task.steps) >= 8, task.id
        assert {"exec", "num", "vis"} <= {s.kind for s in task.steps}, task.id
        meta = task.metadata["cibench_lab"]
        assert meta.get("licence") and meta.get("data_source"), task.id


def test_chinese_and_generation_subsets(library):
    zh = [t for lib in MINE for t in library.select([f"cibench_template_chinese/{lib}/*"])]
    assert len(zh) >= 10 and all(t.language == "zh" for t in zh)
    assert all(t.steps[0].prompt.endswith("模块.\n") for t in zh)
    for lib in GENERATION:
        generation = library.select([f"cibench_generation/{lib}/*"])
        assert len(generation) >= 2, lib
        for task in generation:
            assert "step_types" not in task.metadata and "modules" not in task.metadata
            assert {s.kind for s in task.steps} <= {"exec", "general", "vis"}


def test_every_shipped_data_file_of_these_libraries_is_in_the_licence_table(library):
    readme = (BUILTIN / "README.md").read_text(encoding="utf-8")
    used = {rel for lib in MINE for t in library.select([f"cibench_*/{lib}/*"]) for rel in t.data_files}
    missing = sorted(rel for rel in used if f"`{rel}`" not in readme)
    assert not missing, f"add these to cibench_lab/builtin/README.md: {missing}"
    for rel in used:
        assert (BUILTIN / "datasources" / rel).stat().st_size < 1_000_000, rel


def test_templates_folder_holds_no_tasks(library):
    assert not any(Path(t.path).is_relative_to(BUILTIN / "templates") for t in library.tasks.values())
