"""CIBench's notebook format: the official parsing rules and clear errors for bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from nbcells import code, md, stdout

from cibench_lab.tasks.errors import TaskError
from cibench_lab.tasks.format import parse_notebook, split_thought, user_prompt
from cibench_lab.tasks.library import TaskLibrary

pytestmark = pytest.mark.fast


def nb(cells, **meta) -> bytes:
    return json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}).encode()


def png():
    return {
        "output_type": "display_data",
        "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
        "metadata": {},
    }


def parse(raw, path="x/cibench_template/pandas/t.ipynb"):
    return parse_notebook(raw, Path(path), "cibench_template/pandas/t", None)


def test_thought_split_and_modules_suffix_as_the_official_loader():
    assert split_thought("Do it.\n\nThought: because") == ("Do it.", "because")
    assert split_thought("A\n\nThought: b\n\nThought: c") == ("A\n\nThought: b\n\nThought: c", " ")
    assert (
        user_prompt("Load data.", ("pandas", "matplotlib"), False)
        == "Load data.Please use pandas and matplotlib modules.\n"
    )
    assert user_prompt("读取数据。", ("pandas",), True) == "读取数据。请用 pandas 模块.\n"


def test_reference_kinds_and_step_types():
    raw = nb(
        [
            md("a"),
            code("x=1"),
            md("b\n\nThought: t"),
            code("print(1)", [stdout("1\n"), stdout("2\n")]),
            md("c"),
            code("plot()", [stdout("hi\n"), png()]),
        ],
        step_types=["exec", "num", "vis"],
        modules=["pandas", "pandas & numpy", "matplotlib"],
    )
    task = parse(raw)
    assert [s.reference.kind for s in task.steps] == ["exec", "general", "vis"]
    assert task.steps[1].reference.value == "2\n"  # the last stdout, as the official loader
    assert task.steps[1].prompt == "bPlease use pandas and numpy modules.\n"
    assert [s.kind for s in task.steps] == ["exec", "num", "vis"]
    chinese = parse(raw, "x/cibench_template_chinese/pandas/t.ipynb")
    assert chinese.steps[0].prompt == "a请用 pandas 模块.\n"


@pytest.mark.parametrize(
    "cells,meta,needle",
    [
        ([md("a"), md("b")], {}, "cell 1: expected a code cell"),
        ([md("a"), code("x"), md("c")], {}, "cell 2: last instruction has no reference code"),
        ([md("a"), code("x")], {"step_types": ["exec", "num"]}, "step_types has 2 entries for 1 steps"),
        ([md("a"), code("x")], {"step_types": ["plot"]}, "unknown kind 'plot'"),
        ([md("a"), code("x", [png(), png()])], {}, "cell 1: reference cell has a second display_data"),
        (
            [md("a"), code("x")],
            {"cibench_lab": {"schema_version": 1, "language": "fr"}},
            "cibench_lab.language",
        ),
    ],
)
def test_bad_notebooks_name_file_cell_and_problem(cells, meta, needle):
    with pytest.raises(TaskError) as err:
        parse(nb(cells, **meta))
    assert needle in str(err.value) and "t.ipynb" in str(err.value)


def test_broken_json_and_folder_keeps_good_tasks(tmp_path):
    with pytest.raises(TaskError, match="not valid notebook JSON"):
        parse(b"{not json")
    good = tmp_path / "cibench_template" / "pandas"
    good.mkdir(parents=True)
    (good / "ok.ipynb").write_bytes(nb([md("a"), code("x=1")]))
    (good / "bad.ipynb").write_bytes(nb([md("a")]))
    (tmp_path / "datasources").mkdir()
    lib = TaskLibrary.load([tmp_path, tmp_path])
    assert list(lib.tasks) == ["cibench_template/pandas/ok"]
    messages = [str(p) for p in lib.problems]
    assert any("bad.ipynb" in m and "no reference code" in m for m in messages)
    assert any("duplicate task id" in m for m in messages)
