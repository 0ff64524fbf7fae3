"""The task library as a browser may see it: never reference code, outputs or Thought text."""

from __future__ import annotations

from pydantic import Field

from ...benchmarks.wire import BenchmarkItem, BenchmarkName
from .common import Closed, StepKind


class TaskSummary(Closed):
    id: str
    title: str
    split: str
    lib: str
    language: str
    libraries: list[str]
    steps: int
    kinds: list[StepKind]
    benchmark: BenchmarkName = Field("cibench", description="the benchmark whose rules play the task")
    benchmark_item: BenchmarkItem | None = Field(
        None, description="the task's own item, when its benchmark's tasks have one; null for CIBench tasks"
    )


class TaskInstruction(Closed):
    index: int
    kind: StepKind


class TaskDetail(TaskSummary):
    """A task before play: never reference code, outputs or Thought text."""

    intro: str
    instructions: list[TaskInstruction]
