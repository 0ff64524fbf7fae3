"""The comparison report's figures in words.

One rounding rule: every figure — a pass rate or score x100, a CI bound, a working time in seconds — is
kept to one decimal in JSON and CSV, and a value with its bounds is shown as exactly those numbers,
``8.3 [8.3–8.3]`` (the terminal table, ``cli/compare_table.py``; the lab's results view does the same:
``src/study/report.ts: bounded``).  A missing figure is shown as ``—``; a count of people reads
``1 person`` / ``2 people``.
"""

from __future__ import annotations

DIGITS = 1
MISSING = "—"


def figure(value: float | None) -> float | None:
    """``value`` kept to the report's precision (None stays None)."""
    return None if value is None else round(float(value), DIGITS)


def bounded(value: float | None, lo: float | None, hi: float | None) -> str:
    """``8.3 [8.3–8.3]``: the value and its bounds at one precision; ``—`` without a value, the value
    alone without bounds."""
    if value is None:
        return MISSING
    if lo is None or hi is None:
        return _shown(value)
    return f"{_shown(value)} [{_shown(lo)}–{_shown(hi)}]"


def people(n: int) -> str:
    """``1 person``, ``2 people``."""
    return f"{n} {'person' if n == 1 else 'people'}"


def _shown(value: float) -> str:
    return f"{value:.{DIGITS}f}"
