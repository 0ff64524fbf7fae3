"""Summaries: per-metric means over steps, x100 (CIBench's five metrics).

tool and exec average over every step; num (with the generation split's
``general``, counted separately in ``counts["general"]``), text and vis over the
steps of that kind — a micro-average, exactly OpenCompass's per-dataset metric.
A metric with no step of its kind is None (shown as "-").  Extra fields:
``ungradable`` (steps whose grade says so; they count as 0 in the means) and,
when a VLM judge ran, ``judge`` (mean judge score x100 over judged vis steps)
with ``judge_failed`` (verdicts that failed; never counted as 0); for the steps of a benchmark
graded by its own rules, under its name: its own measures (:mod:`.own`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .own import all_rules

METRICS = ("tool", "exec", "num", "text", "vis")
KIND_METRIC = {"num": "num", "general": "num", "text": "text", "vis": "vis"}


def step_values(g: dict[str, Any]) -> dict[str, float]:
    """The metric values one step grade contributes (0/1 for tool/exec; the score for its kind)."""
    values = {"tool": float(g["tool"]), "exec": float(g["exec"])}
    metric = KIND_METRIC.get(g["kind"])
    if metric:
        values[metric] = float(g["score"] or 0.0)
    return values


def summarize(grades: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Summary of step grades (dicts of one profile) -> {metric: x100 or None, counts, ...}."""
    grades = list(grades)
    sums = {m: 0.0 for m in METRICS}
    counts = {m: 0 for m in METRICS}
    counts["general"] = 0
    ungradable, judged, judge_sum, judge_failed = 0, 0, 0.0, 0
    for g in grades:
        for metric, value in step_values(g).items():
            sums[metric] += value
            counts[metric] += 1
        counts["general"] += g["kind"] == "general"
        ungradable += bool(g.get("ungradable"))
        verdict = g.get("judge")
        if verdict:
            if verdict.get("score") is None:
                judge_failed += 1
            else:
                judged, judge_sum = judged + 1, judge_sum + verdict["score"]
    out: dict[str, Any] = {m: (round(100 * sums[m] / counts[m], 2) if counts[m] else None) for m in METRICS}
    out["counts"] = counts
    out["ungradable"] = ungradable
    if judged or judge_failed:
        out["judge"] = round(100 * judge_sum / judged, 2) if judged else None
        out["judge_failed"] = judge_failed
    for rules in all_rules():  # a benchmark's own measures, under its name
        own = rules.measures(grades)
        if own is not None:
            out[rules.name] = own
    return out


def format_row(summary: dict[str, Any]) -> list[str]:
    return ["-" if summary[m] is None else f"{summary[m]:.1f}" for m in METRICS]
