"""`cibench-lab report`: CIBench's metrics per run, split and library, and the leaderboard.

    cibench-lab report [RUN ...] [--profile cibench|fair] [--format table|csv|json] [--plot FILE.png]
    cibench-lab report --compare humans:STUDY RUN [RUN ...] [--profile ...] [--format ...]
        [--plots DIR] [--allow-mismatch]                     (people beside models: cli/compare.py)

RUN is a run name or id (default: every run).  Only finished attempts count.
Every view names the profile it shows and the grade rule of its attempts (a run or player
whose attempts used both rules is reported once per rule).  See docs/grading.md for the weighting,
the E-/O- columns, Avg and the bootstrap confidence intervals.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select

from ..grading.bounds import bounded
from ..grading.leaderboard import Record, leaderboard, run_report
from ..grading.profile import PROFILES
from ..grading.summary import METRICS
from ..play.settings import PlaySettings
from ..store import Store
from ..store.runs import find_runs
from ..store.tables import Attempt, StepRow
from ..views import csvcells
from . import add_command
from .sections import ReportSection, sections

GENERAL_NOTE = (
    "Num includes the generation split's general_correct steps ({n} here), as CIBench reports them."
)


def load_records(store: Store, selectors: list[str] | None, profile: str) -> list[Record]:
    """Finished attempts of the chosen runs, with their settled steps' grades under ``profile``."""
    with store.session() as s:
        runs = find_runs(s, selectors)
        rows = s.execute(
            select(
                Attempt.run_id,
                Attempt.id,
                Attempt.player,
                Attempt.mode,
                Attempt.task_id,
                Attempt.settings,
                StepRow.grade,
            )
            .outerjoin(StepRow, StepRow.attempt_id == Attempt.id)
            .where(Attempt.run_id.in_([run.id for run in runs]), Attempt.status == "done")
            .order_by(Attempt.task_id, Attempt.created_at, Attempt.id, StepRow.index)
        ).all()
    by_run: dict[int, dict[str, Record]] = {run.id: {} for run in runs}
    names = {run.id: run.name for run in runs}
    for run_id, attempt_id, player, mode, task_id, settings, grade in rows:
        record = by_run[run_id].get(attempt_id)
        if record is None:
            split, lib, _ = (task_id.split("/") + ["", ""])[:3]
            rule = PlaySettings.recorded(settings or {}).grade_rule
            record = Record(names[run_id], player, mode, task_id, split, lib, [], rule)
            by_run[run_id][attempt_id] = record
        if grade and profile in grade:
            record.grades.append(grade[profile])
    return [record for attempts in by_run.values() for record in attempts.values()]


def unsandboxed(store: Store, selectors: list[str] | None) -> dict[str, int]:
    """Finished attempts per run whose kernels ran without the sandbox (or before it was recorded)."""
    with store.session() as s:
        runs = find_runs(s, selectors)
        rows = s.execute(
            select(Attempt.run_id, Attempt.environment).where(
                Attempt.run_id.in_([run.id for run in runs]), Attempt.status == "done"
            )
        ).all()
    names = {run.id: run.name for run in runs}
    counts: dict[str, int] = {}
    for run_id, env in rows:
        if not ((env or {}).get("sandbox") or {}).get("enabled"):
            counts[names[run_id]] = counts.get(names[run_id], 0) + 1
    return counts


def mark_unsandboxed(report: dict[str, Any], counts: dict[str, int]) -> None:
    """Each run says how many of its attempts ran unsandboxed; a note names them."""
    for run in report["runs"]:
        run["unsandboxed"] = counts.get(run["run"], 0)
    for name, n in counts.items():
        report["notes"].append(f"run {name}: {n} attempt(s) ran UNSANDBOXED (no kernel sandbox recorded)")


def rule_note(records: list[Record]) -> str:
    """``grade rule: settling`` — or, when attempts used both rules, that they are apart."""
    rules = sorted({r.grade_rule for r in records})
    if len(rules) == 1:
        return f"grade rule: {rules[0]}"
    return f"grade rules: {', '.join(rules)} (never pooled: a run or player is reported once per rule)"


def build(records: list[Record], profile: str) -> dict[str, Any]:
    runs: dict[tuple[str, str], list[Record]] = {}
    for rec in records:
        runs.setdefault((rec.run, rec.grade_rule), []).append(rec)
    general = sum(g["kind"] == "general" for r in records for g in r.grades)
    notes = [f"profile: {profile}", rule_note(records)]
    notes += [GENERAL_NOTE.format(n=general)] if general else []
    notes.append("95% CIs: percentile bootstrap over tasks (2,000 resamples, seed 0)")
    return {
        "profile": profile,
        "notes": notes,
        "runs": [run_report(recs) for recs in runs.values()],
        "leaderboard": leaderboard(records),
    }


def _cell(value: float | None, ci: list | None = None) -> str:
    """A figure with its CI under it, by the reports' one rounding rule (``grading/bounds.py``)."""
    lo, hi = ci if ci else (None, None)
    return bounded(value, lo, hi).replace(" [", "\n[", 1)


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # piped: wide enough for the 13 leaderboard columns
        console = Console(width=200)
    for run in report["runs"]:
        mark = f" · UNSANDBOXED ({run['unsandboxed']})" if run.get("unsandboxed") else ""
        title = (
            f"run {run['run']} · {run['player']} · {run['mode']} · profile {report['profile']}"
            f" · grade rule {run['grade_rule']}{mark}"
        )
        t = Table(title=title)
        for col in ("scope", "tasks", *(m.capitalize() for m in METRICS)):
            t.add_column(col, justify="left" if col == "scope" else "right")
        for scope, data in _scopes(run):
            cells = [_cell(data[m], data.get("ci", {}).get(m)) for m in METRICS]
            t.add_row(scope, str(data.get("tasks", "")), *cells)
        console.print(t)
    board = Table(title=f"leaderboard · profile {report['profile']}")
    names = [f"{p}-{m.capitalize()}" for p in ("E", "O") for m in METRICS] + ["Avg"]
    for col in ("player", "tasks", *names):
        board.add_column(col, justify="left" if col == "player" else "right")
    mixed = len({row["grade_rule"] for row in report["leaderboard"]}) > 1
    for row in report["leaderboard"]:
        player = f"{row['player']} · {row['grade_rule']}" if mixed else row["player"]
        board.add_row(player, str(row["tasks"]), *(_cell(row[n], row["ci"][n]) for n in names))
    console.print(board)
    for note in report["notes"]:
        console.print(f"[dim]{note}[/dim]")


def _scopes(run: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, metrics) rows of a run: each split's libraries, its CIBench-weighted total, overall."""
    for split, data in run["splits"].items():
        for lib, lib_data in data["libs"].items():
            yield f"{split}/{lib}", lib_data
        total = data["total"]
        weighted = {**total["weighted"], "ci": total["ci"], "tasks": total["tasks"]}
        yield f"{split} (weighted)", weighted
    yield "all", run["overall"]


def csv_rows(report: dict[str, Any]) -> Iterator[list[Any]]:
    """Long format: section, run, player, mode, scope, metric, value, ci_lo, ci_hi, grade_rule."""
    head = ["profile", "section", "run", "player", "mode", "scope", "metric", "value", "ci_lo", "ci_hi"]
    yield [*head, "grade_rule"]
    prof = report["profile"]
    for run in report["runs"]:
        for scope, data in _scopes(run):
            for m in METRICS:
                lo, hi = data.get("ci", {}).get(m, [None, None])
                row = [prof, "run", run["run"], run["player"], run["mode"], scope, m, data[m], lo, hi]
                yield [*row, run["grade_rule"]]
    for row in report["leaderboard"]:
        for name, ci in row["ci"].items():
            cells = [prof, "leaderboard", "", row["player"], "", "all", name, row[name], ci[0], ci[1]]
            yield [*cells, row["grade_rule"]]


def plot(report: dict[str, Any], path: str) -> None:
    """Per-library bars of num/text/vis, one bar per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    libs = sorted({f"{s}/{lib}" for r in report["runs"] for s, d in r["splits"].items() for lib in d["libs"]})
    fig, axes = plt.subplots(3, 1, figsize=(max(6, 1.2 * len(libs) + 2), 9), sharex=True)
    width = 0.8 / max(1, len(report["runs"]))
    for ax, metric in zip(axes, ("num", "text", "vis"), strict=True):
        for i, run in enumerate(report["runs"]):
            values = [_lib_value(run, lib, metric) for lib in libs]
            ax.bar(np.arange(len(libs)) + i * width, values, width, label=f"{run['run']} ({run['mode']})")
        ax.set_ylabel(f"{metric} (x100)")
        ax.set_ylim(0, 100)
    axes[-1].set_xticks(np.arange(len(libs)) + 0.4 - width / 2, libs, rotation=30, ha="right")
    axes[0].legend(fontsize="small")
    axes[0].set_title(f"per library · profile {report['profile']}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _lib_value(run: dict[str, Any], key: str, metric: str) -> float:
    split, lib = key.split("/", 1)
    value = run["splits"].get(split, {}).get("libs", {}).get(lib, {}).get(metric)
    return float("nan") if value is None else value


#: people beside models are compared on the grade people see in the lab; a run's report is CIBench's own
COMPARE_PROFILE, REPORT_PROFILE = "fair", "cibench"


def cmd_report(args: argparse.Namespace) -> int:
    args.profile = args.profile or (COMPARE_PROFILE if args.compare else REPORT_PROFILE)
    if args.compare:
        from .compare import cmd_compare

        return cmd_compare(args)
    if args.plots or args.allow_mismatch:
        print("error: --plots and --allow-mismatch go with --compare humans:STUDY", file=sys.stderr)
        return 2
    store = Store(args.db)
    try:
        records = load_records(store, args.runs, args.profile)
        parts = own_parts(args, store, records)
    except LookupError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for _, part in parts:  # a benchmark with a section is reported in its own table, not CIBench's
        records = [r for r in records if r.task_id not in part["task_ids"]]
    shown = [(section, part) for section, part in parts if part["runs"]]
    if not records and not shown:
        print("error: no finished attempts in the chosen runs", file=sys.stderr)
        return 2
    report = build(records, args.profile) if records else None
    if report is not None:
        mark_unsandboxed(report, unsandboxed(store, args.runs))
    if args.format == "json":
        print(json.dumps({**(report or {}), **{s.name: s.json_part(p) for s, p in shown}}, indent=1))
    elif args.format == "csv" and (rc := _print_csv(report, parts)):
        return rc
    elif args.format == "table":
        _print_tables(report, shown)
    if args.plot:
        _plots(report, shown, args.plot)
    return 0


Part = tuple[ReportSection, dict]


def own_parts(args: argparse.Namespace, store: Store, records: list[Record]) -> list[Part]:
    """Each benchmark section's report of the chosen runs, for those whose split the runs hold
    (their tasks read from the library)."""
    from .common import library

    splits = {r.split for r in records}
    chosen = [s for s in sections() if s.split in splits]
    return [(s, s.build(store, library(args), args.runs, args.profile)) for s in chosen]


def _plots(report: dict | None, shown: list[Part], path: str) -> None:
    """CIBench's per-library chart at ``path``; a section's table as bars there too, or beside it
    (``NAME.<section>.png``) when the runs hold both benchmarks."""
    from pathlib import Path

    if report is not None:
        plot(report, path)
    for section, part in shown:
        target = Path(path).with_suffix(f".{section.name}.png") if report is not None else Path(path)
        section.plot(part, str(target))
        if report is not None:
            print(f"{section.title} chart: {target}", file=sys.stderr)


def _print_csv(report: dict | None, parts: list[Part]) -> int:
    """CIBench's long format, or a section's table cells: one benchmark per CSV."""
    shown = [section for section, part in parts if part["runs"]]
    if shown and (report is not None or len(shown) > 1):
        others = " and ".join(s.short for s in shown)
        print(
            f"error: --format csv: the runs hold CIBench and {others} tasks; report them apart",
            file=sys.stderr,
        )
        return 2
    if report is not None:
        csvcells.Writer(sys.stdout).writerows(csv_rows(report))
    elif parts:
        section, part = parts[0]
        csvcells.Writer(sys.stdout).writerows(section.csv_rows(part))
    return 0


def _print_tables(report: dict | None, shown: list[Part]) -> None:
    if report is not None:
        print_table(report)
    for section, part in shown:
        print(section.render(part))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = add_command(sub, "report")
    r.add_argument("runs", nargs="*", metavar="RUN", help="run names or ids (default: all runs)")
    r.add_argument(
        "--profile",
        choices=PROFILES,
        help=f"grading profile (default {REPORT_PROFILE}: CIBench's metrics; with --compare, "
        f"{COMPARE_PROFILE}: the grade people see in the lab, as the lab's Results view)",
    )
    r.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    r.add_argument(
        "--plot",
        metavar="FILE.png",
        help="also write a bar chart: per library (CIBench), or a benchmark's own table's cells",
    )
    c = r.add_argument_group("people beside models (docs/compare.md)")
    c.add_argument(
        "--compare", metavar="humans:STUDY", help="compare the study's people with the RUNs, step by step"
    )
    c.add_argument("--plots", metavar="DIR", help="with --compare: write the comparison's PNG plots here")
    c.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="with --compare: show runs played under other conditions, marked (default: refuse)",
    )
    r.set_defaults(fn=cmd_report)
