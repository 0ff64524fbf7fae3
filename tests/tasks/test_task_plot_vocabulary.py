"""The plot-element vocabulary is one list: the task schema, the grader and the lint share it."""

import json
from importlib import resources

import pytest

from cibench_lab.tasks.errors import TaskError
from cibench_lab.tasks.meta import read_meta
from cibench_lab.tasks.plot import ELEMENTS, LEGACY, UNDECLARED, declared_elements

pytestmark = pytest.mark.fast


def test_the_schema_enumerates_exactly_the_vocabulary_and_the_old_names():
    schema = json.loads(resources.files("cibench_lab.tasks").joinpath("task.schema.json").read_text())
    items = schema["properties"]["plot_elements"]["additionalProperties"]["items"]["enum"]
    assert items == list(ELEMENTS) + list(LEGACY)


def test_an_unknown_element_is_refused_naming_the_field():
    meta = {"cibench_lab": {"schema_version": 1, "plot_elements": {"2": ["title", "shading"]}}}
    with pytest.raises(TaskError, match=r"metadata\.cibench_lab\.plot_elements\.2\.1: 'shading'"):
        read_meta(meta, "t.ipynb", "cibench_template", "pandas", "t")


def test_declared_elements_per_step_and_the_default_without_a_declaration():
    meta = {"cibench_lab": {"schema_version": 1, "plot_elements": {"3": ["title", "legend"]}}}
    assert declared_elements(meta, 3) == ("title", "legend")
    assert declared_elements(meta, 4) == ()  # declared task, step not listed: data only
    assert declared_elements({}, 3) == UNDECLARED
