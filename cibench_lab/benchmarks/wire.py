"""The benchmarks on the wire: what the API's schemas name without naming a benchmark.

A task's ``benchmark`` is one of :data:`BenchmarkName`; a benchmark whose tasks carry an item of
their own (``TaskSummary.benchmark_item``) or whose attempts have measures of their own
(``Summary.benchmark_measures``) supplies their models here, in the union of its kind: adding a
third benchmark with either adds its name and its model, and the API document
(``docs/openapi.json``, ``src/schema.ts``) follows.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypeAliasType

from .qwen.wire import QwenItem, QwenMeasures

#: The benchmark whose rules play a task (:attr:`.Benchmark.name`; CIBench's unless another owns it).
BenchmarkName = TypeAliasType("BenchmarkName", Literal["cibench", "qwen"])
#: A task's own item as the task list shows it (no gold): the item model of its benchmark.
BenchmarkItem = TypeAliasType("BenchmarkItem", QwenItem)
#: An attempt's own measures of its steps' grades x100: the measures model of its benchmark.
BenchmarkMeasures = TypeAliasType("BenchmarkMeasures", QwenMeasures)
