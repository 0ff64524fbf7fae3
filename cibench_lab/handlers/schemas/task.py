"""The task library as a browser may see it: never reference code, outputs or Thought text."""

from __future__ import annotations

from typing import Literal

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
    benchmark: Literal["cibench", "qwen"] = "cibench"  # qwen: Qwen's Code Interpreter Benchmark (one step)


class TaskInstruction(Closed):
    index: int
    kind: StepKind


class TaskDetail(TaskSummary):
    """A task before play: never reference code, outputs or Thought text."""

    intro: str
    instructions: list[TaskInstruction]
