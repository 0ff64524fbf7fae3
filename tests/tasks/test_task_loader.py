"""The task loader: the official layout (folder, zip, single notebooks), clear errors, and a fuzz test."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbcells import code, md, stdout

from cibench_lab.tasks.errors import TaskError
from cibench_lab.tasks.format import parse_notebook
from cibench_lab.tasks.library import TaskLibrary

pytestmark = pytest.mark.fast


def nb(cells, **meta) -> dict:
    return {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def png(with_image=True):
    data = {"image/png": "iVBORw0KGgo=\n"} if with_image else {}
    return {"output_type": "display_data", "data": {**data, "text/plain": "<Figure>"}, "metadata": {}}


def write(root: Path, rel: str, notebook) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(notebook if isinstance(notebook, str) else json.dumps(notebook), encoding="utf-8")
    return path


GOOD = nb([md("Load.\n\nThought: read it"), code("x = 1"), md("Print x."), code("print(x)", [stdout("1\n")])])


def official_folder(root: Path) -> Path:
    """A tiny dataset in the official layout: three splits + datasources, one bad notebook."""
    typed = nb(GOOD["cells"], step_types=["exec", "num"], modules=["pandas", "pandas"])
    write(root, "cibench_template/pandas/exp01.ipynb", typed)
    write(root, "cibench_template_chinese/pandas/exp01.ipynb", typed)
    write(root, "cibench_generation/pandas/gen01.ipynb", GOOD)
    write(root, "cibench_template/pandas/broken.ipynb", "{ not json")
    write(root, "cibench_template/pandas/.ipynb_checkpoints/exp01-checkpoint.ipynb", GOOD)
    write(root, "datasources/data/numbers.csv", "a\n1\n")
    return root


# --------------------------------------------------------------------------- errors


def parse(notebook, rel="cibench_template/pandas/t.ipynb"):
    return parse_notebook(json.dumps(notebook).encode(), Path(rel), "cibench_template/pandas/t", None)


@pytest.mark.parametrize(
    "notebook,needle",
    [
        (nb([md("a"), code("x", [png(), png()])]), "cell 1: reference cell has a second display_data"),
        (nb([md("a"), code("x", [png(), png(False)])]), "cell 1: reference cell has a second display_data"),
        (nb([md("a"), code("x", ["not an output"])]), "cell 1: an output is not an object"),
        (nb([md("a"), code("x", [{"output_type": "stream", "name": "stdout", "text": 5}])]), "stream text"),
        (nb([md(["a", 3]), code("x")]), "cell 0: cell source must be a string"),
        (nb([md("a"), code("x")], step_types="num"), "step_types has no list of entries for 1 steps"),
        (nb([md("a"), code("x")], step_types=[["num"]]), "unknown kind ['num']"),
        (nb([md("a"), code("x")], modules=["pandas"]), "modules needs metadata.step_types"),
        (nb([]), "notebook has no cells"),
        ({**GOOD, "nbformat": 99}, "nbformat 99: only nbformat 4 notebooks can be tasks"),
        ({**GOOD, "nbformat": "4"}, "nbformat '4': only nbformat 4"),
        ({k: v for k, v in GOOD.items() if k != "nbformat"}, "no nbformat version: only nbformat 4"),
        ({"cells": "x"}, "not a notebook (no cells list)"),
        ({"cells": [md("a"), code("x")], "metadata": []}, "notebook metadata is not an object"),
    ],
)
def test_bad_notebooks_are_refused_with_file_cell_and_problem(notebook, needle):
    with pytest.raises(TaskError) as err:
        parse(notebook)
    assert needle in str(err.value) and str(err.value).startswith("cibench_template/pandas/t.ipynb")


def test_image_after_a_text_only_display_is_the_reference_as_officially():
    task = parse(nb([md("a"), code("x", [png(False), stdout("hi\n"), png()])]))
    assert task.steps[0].reference.kind == "vis"
    assert task.steps[0].reference.value == "iVBORw0KGgo=\n"  # unchanged, as the official loader keeps it


def test_generation_split_kinds_are_detected_from_the_outputs():
    cells = [
        md("a"),
        code("x = 1"),
        md("b"),
        code("x", [{"output_type": "execute_result", "data": {"text/plain": "1"}}]),
    ]
    cells += [md("c"), code("plot()", [stdout("noise\n"), png()])]
    task = parse(nb(cells), "cibench_generation/pandas/t.ipynb")
    assert [s.kind for s in task.steps] == ["exec", "general", "vis"]
    assert [s.prompt for s in task.steps] == ["a\n", "b\n", "c\n"]


def test_missing_data_file_and_duplicate_ids_are_reported_and_the_rest_load(tmp_path):
    needs = nb(GOOD["cells"], cibench_lab={"schema_version": 1, "data_files": ["data/absent.csv"]})
    write(tmp_path, "cibench_template/pandas/needs_data.ipynb", needs)
    write(tmp_path, "cibench_template/pandas/good.ipynb", GOOD)
    write(tmp_path, "cibench_template/pandas/bad.ipynb", nb([md("a"), md("b")]))
    (tmp_path / "datasources").mkdir()
    lib = TaskLibrary.load([tmp_path, tmp_path])
    assert list(lib.tasks) == ["cibench_template/pandas/good"]
    problems = [str(p) for p in lib.problems]
    assert any("needs_data.ipynb" in p and "data file 'data/absent.csv' not found" in p for p in problems)
    assert any("bad.ipynb: cell 1: expected a code cell" in p for p in problems)
    assert any("duplicate task id 'cibench_template/pandas/good'" in p for p in problems)


# --------------------------------------------------------------------------- layouts


def test_official_folder_checkpoints_and_non_split_folders(tmp_path):
    root = official_folder(tmp_path / "cibench_dataset")
    write(root, "templates/pandas/a_template.ipynb", GOOD)  # not a split: ignored
    lib = TaskLibrary.load([tmp_path])  # the parent: the layout is found one level down
    assert sorted(lib.tasks) == [
        "cibench_generation/pandas/gen01",
        "cibench_template/pandas/exp01",
        "cibench_template_chinese/pandas/exp01",
    ]
    assert [Path(p.path).name for p in lib.problems] == ["broken.ipynb"]
    zh = lib.get("cibench_template_chinese/pandas/exp01")
    assert zh.language == "zh" and zh.steps[0].prompt == "Load.请用 pandas 模块.\n"
    assert lib.get("cibench_template/pandas/exp01").datasources == root / "datasources"


def test_official_zip_and_single_notebook(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    root = official_folder(tmp_path / "src" / "cibench_dataset")
    archive = tmp_path / "cibench_dataset.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted(root.rglob("*")):
            zf.write(f, f.relative_to(root.parent))
        zf.writestr("__MACOSX/cibench_dataset/cibench_template/pandas/._exp01.ipynb", "junk")
    lib = TaskLibrary.load([archive])
    assert len(lib.tasks) == 3 and len(lib.problems) == 1
    again = TaskLibrary.load([archive])  # unpacked once, then reused
    assert sorted(again.tasks) == sorted(lib.tasks)
    single = TaskLibrary.load([root / "cibench_template" / "pandas" / "exp01.ipynb"])
    assert list(single.tasks) == ["cibench_template/pandas/exp01"]


def test_zip_members_outside_the_archive_are_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape/cibench_template/pandas/x.ipynb", json.dumps(GOOD))
    lib = TaskLibrary.load([archive])
    assert not lib.tasks and "points outside the archive" in str(lib.problems[0])


# --------------------------------------------------------------------------- fuzz

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
OUTPUT = st.fixed_dictionaries(
    {"output_type": st.sampled_from(["stream", "display_data", "execute_result", "error", 3])},
    optional={"name": st.sampled_from(["stdout", "stderr", None]), "text": JSON, "data": JSON},
)
CELL = st.fixed_dictionaries(
    {"cell_type": st.sampled_from(["markdown", "code", "raw", None])},
    optional={"source": JSON | st.text(), "outputs": st.lists(OUTPUT | JSON, max_size=3) | JSON},
)
NOTEBOOK = st.fixed_dictionaries(
    {"cells": st.lists(CELL, max_size=6) | JSON, "nbformat": st.just(4) | JSON},
    optional={
        "metadata": st.fixed_dictionaries(
            {},
            optional={
                "step_types": st.lists(st.sampled_from(["exec", "num", "text", "vis", "general"])) | JSON,
                "modules": st.lists(st.text(max_size=10)) | JSON,
                "cibench_lab": JSON,
            },
        )
        | JSON
    },
)


PAIR = st.tuples(
    st.text(max_size=30) | st.just("a\n\nThought: b") | st.lists(st.text(max_size=5), max_size=3),
    st.lists(OUTPUT | JSON, max_size=3),
)


@st.composite
def alternating(draw):
    """Well-formed alternation with fuzzed sources, outputs and metadata: reaches the deeper checks."""
    pairs = draw(st.lists(PAIR, min_size=1, max_size=4))
    cells = [c for text, outs in pairs for c in (md(text), code("x", outs))]
    kinds = st.sampled_from(["exec", "num", "text", "vis"])
    meta = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "step_types": st.lists(kinds, min_size=len(pairs), max_size=len(pairs)) | JSON,
                "modules": st.lists(st.text(max_size=8), min_size=len(pairs), max_size=len(pairs)),
                "cibench_lab": st.fixed_dictionaries(
                    {"schema_version": st.just(1)}, optional={"language": JSON}
                ),
            },
        )
    )
    return nb(cells, **meta)


def _parse_raw(raw: bytes, rel: str = "cibench_template/pandas/f.ipynb"):
    try:
        parse_notebook(raw, Path(rel), "cibench_template/pandas/f", None)
    except TaskError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NOTEBOOK)
def test_fuzz_notebook_shapes_raise_only_task_errors(notebook):
    _parse_raw(json.dumps(notebook).encode())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    alternating(), st.sampled_from(["cibench_template/pandas/f.ipynb", "cibench_template_chinese/x/f.ipynb"])
)
def test_fuzz_alternating_notebooks_raise_only_task_errors(notebook, rel):
    _parse_raw(json.dumps(notebook).encode(), rel)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_fuzz_bytes_raise_only_task_errors(raw):
    _parse_raw(raw)


def test_deeply_nested_json_is_a_task_error():
    with pytest.raises(TaskError, match="not valid notebook JSON"):
        parse_notebook(b"[" * 100_000, Path("x.ipynb"), "a/b/c", None)
