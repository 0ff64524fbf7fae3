"""The comparison report as terminal tables (rich): steps, steps by difficulty, tasks, libraries."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ..grading.bounds import DIGITS, MISSING, bounded, people

NOT_PLAYED = "not played"
NOT_GRADED = "not graded"


def _rate(h: dict[str, Any]) -> str:
    if not h["steps"] and h["not_graded"]:
        return NOT_GRADED
    return bounded(h["rate"], *h["ci"])


def _time(t: dict[str, Any]) -> str:
    return bounded(t["median"], t["q1"], t["q3"])


def _people(h: dict[str, Any]) -> str:
    if not h["n"] and not h["quit"]:
        return NOT_PLAYED
    return people(h["n"]) + (f" (+{h['quit']} quit)" if h["quit"] else "")


def _step_result(got: dict[str, Any] | None) -> str:
    if got is None:
        return NOT_PLAYED
    if not got["graded"]:
        return NOT_GRADED
    word = "pass" if got["passed"] else "miss"
    return word if got["score"] is None else f"{word} {got['score']:.{DIGITS}f}"


def _group_result(got: dict[str, Any]) -> str:
    if not got["tasks"]:
        return NOT_PLAYED
    return MISSING if got["rate"] is None else f"{got['rate']:.{DIGITS}f} ({got['passed']}/{got['steps']})"


def _difficulty(row: dict[str, Any]) -> str:
    return MISSING if row["difficulty"] is None else f"{row['difficulty']:+.2f} ({row['rank']})"


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=160)  # piped: room for a few runs


def _title(report: dict[str, Any], what: str) -> str:
    runs = ", ".join(r["run"] for r in report["runs"])
    mark = " · NOT COMPARABLE (marked)" if report["comparability"]["mismatches"] else ""
    who = f"humans:{report['study']} ({people(report['people'])})"
    return f"{what} · {who} vs {runs} · profile {report['profile']}{mark}"


def _table(report: dict[str, Any], what: str, first: str, per: str) -> Table:
    t = Table(title=_title(report, what))
    t.add_column(first)
    t.add_column("people", justify="right")
    t.add_column("pass % [95% CI]", justify="right")
    t.add_column("time s [IQR]", justify="right")
    for run in report["runs"]:
        t.add_column(f"{run['run']} {per}".strip(), justify="right")
    return t


def print_table(report: dict[str, Any]) -> None:
    console = _console()
    mismatched = bool(report["comparability"]["mismatches"])
    steps = _table(report, "per step", "step", "")
    steps.add_column("difficulty (rank)", justify="right")
    if mismatched:
        steps.add_column("mismatch")
    for row in report["steps"]:
        h = row["humans"]
        cells = [f"{row['task']} #{row['step'] + 1} {row['kind']}", _people(h), _rate(h), _time(h["time"])]
        cells += [_step_result(row["runs"][r["run"]]) for r in report["runs"]]
        cells.append(_difficulty(row))
        steps.add_row(*cells, *(["; ".join(row["mismatch"]) or "-"] if mismatched else []))
    console.print(steps)
    console.print(_ranked(report))
    for what, key in (("per task", "task"), ("per library", "lib")):
        t = _table(report, what, key, "pass %")
        if mismatched:
            t.add_column("mismatch")
        for row in report["tasks" if key == "task" else "libraries"]:
            h = row["humans"]
            cells = [row[key], _people(h), _rate(h), _time(h["time"])]
            cells += [_group_result(row["runs"][r["run"]]) for r in report["runs"]]
            t.add_row(*cells, *(["; ".join(row["mismatch"]) or "-"] if mismatched else []))
        console.print(t)
    for m in report["comparability"]["mismatches"]:
        console.print(f"MISMATCH run {m['run']}, task {m['task']}: {m['reason']}", markup=False, style="bold")
    for note in report["notes"]:
        console.print(note, markup=False, style="dim")


def _ranked(report: dict[str, Any]) -> Table:
    fit = report["difficulty"]
    converged = "" if fit["converged"] else " · DID NOT CONVERGE"
    t = Table(title=f"steps by difficulty (Rasch, ridge {fit['ridge']}){converged}")
    for col in ("rank", "step", "difficulty"):
        t.add_column(col, justify="left" if col == "step" else "right")
    for item in fit["items"]:
        step = f"{item['task']} #{item['step'] + 1} {item['kind']}"
        t.add_row(str(item["rank"]), step, f"{item['difficulty']:+.2f}")
    return t
