"""A profile's step grades as Inspect AI scores: one score per CIBench metric.

A sample (an attempt) scores ``tool``, ``exec``, ``num``, ``text`` and ``vis`` x100, as
`report` shows them (``grading.summary``); a metric with no step of its kind is left out (Inspect
counts the sample unscored for it).  Each score's metadata holds its step count and the sum of
its steps' values, so a log's ``micro`` metric pools steps over samples exactly as `report`
does (CIBench's micro-average); ``mean`` is Inspect's mean over samples.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspect_ai.scorer import Score

from ..grading.summary import METRICS, step_values, summarize

MICRO, MEAN = "micro", "mean"


def sample_scores(grades: list[dict[str, Any]]) -> dict[str, Score]:
    """The attempt's scores from its step grades under one profile."""
    sums = {m: 0.0 for m in METRICS}
    for g in grades:
        for metric, value in step_values(g).items():
            sums[metric] += value
    summary = summarize(grades)
    return {
        m: Score(value=summary[m], metadata={"steps": summary["counts"][m], "sum": sums[m]})
        for m in METRICS
        if summary[m] is not None
    }


def pooled(scores: Iterable[Score]) -> float | None:
    """Steps pooled over samples, x100 (`report`'s figure for the same attempts)."""
    steps, total = 0, 0.0
    for score in scores:
        meta = score.metadata or {}
        steps += int(meta.get("steps", 0))
        total += float(meta.get("sum", 0.0))
    return round(100 * total / steps, 2) if steps else None


def mean(scores: Iterable[Score]) -> float | None:
    """The samples' mean, as Inspect's ``mean()`` metric."""
    values = [float(s.as_float()) for s in scores]
    return sum(values) / len(values) if values else None
