"""A step's grade under one profile and an attempt's summary of them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .common import Record, StepKind, absent


class Grade(Record):
    """A step's grade under one profile, as of the turns so far."""

    profile: str
    kind: StepKind
    tool: float
    exec: float
    score: float | None
    metric: str
    detail: str
    passed: bool
    ungradable: str | None
    judge: dict[str, Any] | None = absent("the VLM judge's verdict (fair vis steps, when configured)")


class QwenMeasures(Record):
    """A Qwen benchmark attempt's measures x100 (grading/qwen/lab.py ``qwen_measures``)."""

    executable: float = Field(description="steps whose kept run ran without an error")
    accuracy: float | None = Field(
        description="of the graded steps of a family that has an accuracy; null: none graded, or none has one"
    )
    accuracy_of: str | None = Field(description="math | visualization: the family measured; null: none")
    steps: int
    not_graded: int = Field(description="steps not graded (a visualization step without a judge's verdict)")


class Summary(Record):
    """Per-metric means x100 (null when no step has that metric)."""

    tool: float | None
    exec: float | None
    num: float | None
    text: float | None
    vis: float | None
    counts: dict[str, int]
    ungradable: int = absent()
    judge: float | None = absent()
    judge_failed: int = absent()
    qwen: QwenMeasures = absent("a Qwen benchmark task's attempt: its family's measures (shown instead)")
