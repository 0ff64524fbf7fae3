"""The task library as a browser may see it: never reference code, outputs or Thought text."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Closed, StepKind


class QwenItem(Closed):
    """A Qwen benchmark task's item as the task list shows it (tasks/qwen.py: public_item)."""

    question: str = Field(description="the question as asked, without an easy item's prior turn")
    family: Literal["qwen-math", "qwen-vis", "qwen-general"]
    difficulty: Literal["easy", "hard"] | None = Field(
        description="visualization: easy when the item's first turn runs before play; else null"
    )
    files: list[str] = Field(description="its files, as paths inside upload_file/")
    source: str = Field(description="the benchmark file the item came from")
    line: int = Field(description="its line in that file")
    calls: int = Field(description="the item's interpreter call limit (the original's)")
    runs: int = Field(description="the runs a person gets: the calls, less an easy item's prior turn")


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
    qwen: QwenItem | None = Field(None, description="a Qwen benchmark task's item; null for CIBench tasks")


class TaskInstruction(Closed):
    index: int
    kind: StepKind


class TaskDetail(TaskSummary):
    """A task before play: never reference code, outputs or Thought text."""

    intro: str
    instructions: list[TaskInstruction]
