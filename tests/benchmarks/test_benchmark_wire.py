"""The API names a benchmark's own item and measures without naming the benchmark: each registered
benchmark's name is a word of ``BenchmarkName`` and its models are the ones the wire carries; a stored
summary's own measures (kept under the rules' name) reach the browser as ``benchmark_measures``.
Cost: < 1 s."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from cibench_lab.benchmarks import CIBENCH, registered
from cibench_lab.benchmarks.wire import BenchmarkItem, BenchmarkMeasures, BenchmarkName
from cibench_lab.grading.own import all_rules
from cibench_lab.views.attempt import wire_summary

pytestmark = pytest.mark.fast
OPENAPI = Path(__file__).parents[2] / "docs" / "openapi.json"


def _models(alias) -> set:
    value = alias.__value__
    return set(get_args(value)) or {value}


def test_every_benchmark_is_a_word_and_its_models_are_on_the_wire():
    names = get_args(BenchmarkName.__value__)
    assert CIBENCH.name in names and CIBENCH.item_model is None and CIBENCH.measures_model is None
    for benchmark in registered():
        assert benchmark.name in names
        assert benchmark.item_model is None or benchmark.item_model in _models(BenchmarkItem)
        assert benchmark.measures_model is None or benchmark.measures_model in _models(BenchmarkMeasures)
    schemas = json.loads(OPENAPI.read_text())["components"]["schemas"]
    assert schemas["BenchmarkName"]["enum"] == list(names)
    item = schemas["TaskSummary"]["properties"]["benchmark_item"]
    assert item["anyOf"][0]["$ref"].endswith("/BenchmarkItem")


def test_a_stored_summary_carries_its_own_measures_as_benchmark_measures():
    (rules,) = all_rules()
    measures = {"executable": 100.0, "accuracy": None, "accuracy_of": None, "steps": 1, "not_graded": 1}
    stored = {"tool": 100.0, "counts": {"tool": 1}, rules.name: measures}
    assert wire_summary(stored) == {"tool": 100.0, "counts": {"tool": 1}, "benchmark_measures": measures}
    assert rules.name in stored  # the stored record is left as it is
    assert wire_summary({"tool": 0.0}) == {"tool": 0.0}
