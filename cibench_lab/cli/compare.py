"""`cibench-lab report --compare humans:STUDY RUN [RUN ...]`: people beside model runs.

Reads the study's people and the runs (``studies/comparison.py``), checks that they were played under
the same conditions (``grading/comparability.py``: a mismatch is refused unless ``--allow-mismatch``,
which marks it in every row it affects), and shows per step, task and library the people's pass rate
with its bootstrap CI, their working time, each run's result and the steps' Rasch difficulty
(``grading/compare.py``, ``grading/rasch.py``; docs/compare.md).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import EngineError
from ..store import Store
from ..studies.comparison import NotComparable, compare
from ..views import csvcells
from .common import library

SPEC = "humans:"
HINT = "--allow-mismatch shows the comparison anyway, the mismatches marked in every row"


def cmd_compare(args: argparse.Namespace) -> int:
    study = args.compare.removeprefix(SPEC)
    if not args.compare.startswith(SPEC) or not study:
        return _error(f"--compare: expected humans:STUDY, not {args.compare!r}")
    if not args.runs:
        return _error("--compare: name at least one RUN to compare the people with")
    if args.plot:
        return _error("--plot: the leaderboard's chart; with --compare use --plots DIR")
    try:
        tasks = functools.cache(lambda: library(args))  # read only for a task no person finished
        report = compare(Store(args.db), study, args.runs, args.profile, args.allow_mismatch, tasks)
    except NotComparable as err:
        for line in [*err.lines, HINT]:
            print(f"error: {line}", file=sys.stderr)
        return 2
    except EngineError as err:
        return _error(str(err))
    return emit(report, args.format, args.plots)


def emit(report: dict[str, Any], form: str, plots: str | None) -> int:
    """Print the report as ``form``; write the plots into ``plots`` when given."""
    if form == "json":
        print(json.dumps(report, indent=1))
    elif form == "csv":
        csvcells.Writer(sys.stdout).writerows(csv_rows(report))
    else:
        from .compare_table import print_table

        print_table(report)
    if plots:
        try:
            from .compare_plots import write_plots

            paths = write_plots(report, plots)
        except ImportError as err:
            return _error(f"--plots: needs matplotlib ({err}); pip install matplotlib")
        sys.stdout.flush()
        print(f"plots: {', '.join(paths)}", file=sys.stderr)
    return 0


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


HEAD = [
    "profile", "section", "task", "lib", "step", "kind", "who", "n", "passed", "steps", "rate", "ci_lo",
    "ci_hi", "score", "time_median", "time_q1", "time_q3", "quit", "not_graded", "difficulty", "rank",
    "mismatch",
]  # fmt: skip


def csv_rows(report: dict[str, Any]) -> Iterator[Sequence[object]]:
    """Long format: one row per section (step, task, library), row and respondent group (``who``:
    ``humans`` or a run name); ``mismatch`` lists ``run: field`` for every mismatch the row carries."""
    yield HEAD
    for section, key in (("step", "steps"), ("task", "tasks"), ("library", "libraries")):
        for row in report[key]:
            yield from _csv_group(report["profile"], section, row)


def _csv_group(profile: str, section: str, row: dict[str, Any]) -> Iterator[Sequence[object]]:
    task = row.get("task", "")
    lib = row.get("lib", "") if section != "library" else row["lib"]
    where = [profile, section, task, lib, row.get("step", ""), row.get("kind", "")]
    tail = [row.get("difficulty", ""), row.get("rank", "")]
    h = row["humans"]
    time = h["time"]
    yield [
        *where, "humans", h["n"], h["passed"], h["steps"], h["rate"], h["ci"][0], h["ci"][1], h["score"],
        time["median"], time["q1"], time["q3"], h["quit"], h["not_graded"], *tail, "; ".join(row["mismatch"]),
    ]  # fmt: skip
    for run, got in row["runs"].items():
        marks = "; ".join(m for m in row["mismatch"] if m.startswith(f"{run}: "))
        if got is None:
            yield [*where, run, 0, "", "", "", "", "", "", "", "", "", "", "", *tail, marks]
        elif section == "step" and not got["graded"]:
            yield [*where, run, 1, 0, 0, "", "", "", got["score"], "", "", "", "", 1, *tail, marks]
        elif section == "step":
            passed = int(got["passed"])
            rate = 100.0 * passed
            yield [*where, run, 1, passed, 1, rate, "", "", got["score"], "", "", "", "", 0, *tail, marks]
        else:
            yield [*where, run, got["tasks"], got["passed"], got["steps"], got["rate"], "", "", got["score"],
                   "", "", "", "", got["not_graded"], *tail, marks]  # fmt: skip
