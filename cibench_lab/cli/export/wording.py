"""How a transcript notebook words times, durations and grades (markdown)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...grading.profile import PROFILES
from ...grading.qwen.lab import not_graded
from ...store.times import as_utc, parse_iso


def when(at: str | dt.datetime | None) -> str:
    """``2025-01-01 12:00:03 UTC`` from an export time (ISO with Z) or a database time."""
    if at is None:
        return "-"
    at = parse_iso(at) if isinstance(at, str) else as_utc(at)
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")


def clock(at: str | dt.datetime | None) -> str:
    """The time of day only (``12:00:03``), for rows within one attempt."""
    return "-" if at is None else when(at)[11:19]


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min {secs} s"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def score(grade: dict[str, Any] | None) -> str:
    """``0.85 passed`` / ``missed`` (a step kind without a score: exec) / ``not graded (…)``."""
    if not grade:
        return "-"
    if not_graded(grade):
        return str(grade.get("detail") or "not graded")
    verdict = "passed" if grade.get("passed") else "missed"
    value = grade.get("score")
    return verdict if value is None else f"{value:.2f} {verdict}"


def table(head: list[str], body: list[list[str]]) -> str:
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |"

    return "\n".join([line(head), line(["---"] * len(head)), *(line(r) for r in body)])


def profiles_of(grades: dict[str, Any] | None) -> list[str]:
    """The profiles a grade holds, in the profiles' order."""
    return [p for p in PROFILES if p in (grades or {})]
