"""Qwen's benchmark on the wire: its item in the task list and its measures in an attempt's summary
(the API's ``BenchmarkItem`` and ``BenchmarkMeasures``: :mod:`cibench_lab.benchmarks.wire`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class QwenItem(BaseModel):
    """A Qwen benchmark task's item as the task list shows it (tasks/qwen.py: public_item)."""

    model_config = ConfigDict(strict=True, extra="forbid")  # a response: no field it does not declare

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


class QwenMeasures(BaseModel):
    """A Qwen benchmark attempt's measures x100 (grading/qwen/lab.py ``qwen_measures``)."""

    model_config = ConfigDict(strict=True, extra="allow")  # a stored record: more may appear

    executable: float = Field(description="steps whose kept run ran without an error")
    accuracy: float | None = Field(
        description="of the graded steps of a family that has an accuracy; null: none graded, or none has one"
    )
    accuracy_of: str | None = Field(description="math | visualization: the family measured; null: none")
    steps: int
    not_graded: int = Field(description="steps not graded (a visualization step without a judge's verdict)")
