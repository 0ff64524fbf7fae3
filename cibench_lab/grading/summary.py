"""Summaries: per-metric means over steps, x100 (CIBench's five metrics).

tool and exec average over every step; num (with the generation split's
``general``), text and vis over the steps of that kind.  A metric with no step
of its kind is None (shown as "-").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

METRICS = ("tool", "exec", "num", "text", "vis")
_KIND_METRIC = {"num": "num", "general": "num", "text": "text", "vis": "vis"}


def summarize(grades: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summary of step grades (dicts of one profile) -> {metric: x100 or None, counts}."""
    sums = {m: 0.0 for m in METRICS}
    counts = {m: 0 for m in METRICS}
    for g in grades:
        for m in ("tool", "exec"):
            sums[m] += g["tool"] if m == "tool" else g["exec"]
            counts[m] += 1
        metric = _KIND_METRIC.get(g["kind"])
        if metric:
            sums[metric] += float(g["score"] or 0.0)
            counts[metric] += 1
    out: dict[str, Any] = {m: (round(100 * sums[m] / counts[m], 2) if counts[m] else None) for m in METRICS}
    out["counts"] = counts
    return out


def format_row(summary: dict[str, Any]) -> list[str]:
    return ["-" if summary[m] is None else f"{summary[m]:.1f}" for m in METRICS]
