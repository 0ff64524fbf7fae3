"""A step's grade under one profile and an attempt's summary of them."""

from __future__ import annotations

from typing import Any

from ...benchmarks.wire import BenchmarkMeasures
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
    benchmark_measures: BenchmarkMeasures = absent(
        "an attempt of a benchmark whose steps have measures of their own: those (shown instead)"
    )
