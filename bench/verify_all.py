"""Verify every task (built-in + imported) and print the total time and the peak kernel memory.

    python bench/verify_all.py [--jobs 2] [--sandbox | --no-sandbox] [PATTERN ...]

Runs the same check as ``cibench-lab tasks verify`` (each reference re-executed in a fresh
kernel, every step compared under every grading profile) and reports what the issue's budget
is about: the full verify should take at most 15 minutes at ``--jobs 2`` on a 2-core machine.
Exits non-zero when any task drifted.
"""

from __future__ import annotations

import argparse
import sys
import time

from cibench_lab.authoring.verify import Verdict
from cibench_lab.cli.common import library, start_sandbox
from cibench_lab.cli.tasks import run_with_progress, summary_line, verdict_lines, verifiable

BUDGET_SECONDS = 15 * 60


def run(patterns: list[str], jobs: int) -> tuple[list[Verdict], float]:
    """``cibench-lab tasks verify`` with its defaults: verdicts and the wall time."""
    args = argparse.Namespace(
        task_dir=None, jobs=jobs, timeout=120.0, exact=False, json=False, no_progress=False
    )
    tasks = verifiable(library(args).select(patterns or None))
    started = time.perf_counter()
    verdicts = run_with_progress(tasks, args)
    return verdicts, time.perf_counter() - started


def report(verdicts: list[Verdict], seconds: float, jobs: int) -> int:
    for v in verdicts:
        if not v.ok or v.changed:
            print("\n".join(verdict_lines(v)))
    print(f"{summary_line(verdicts, seconds)}; jobs: {jobs}")
    budget = "within" if seconds <= BUDGET_SECONDS else "OVER"
    peak = max(verdicts, key=lambda v: v.peak_rss or 0, default=None)
    peak_task = f"; peak kernel memory in {peak.task_id}" if peak is not None and peak.peak_rss else ""
    print(f"total time: {seconds:.1f} s ({budget} the {BUDGET_SECONDS // 60}-minute budget){peak_task}")
    print(
        "slowest tasks: "
        + ", ".join(f"{v.task_id} {v.seconds:.1f} s" for v in sorted(verdicts, key=lambda v: -v.seconds)[:5])
    )
    return 0 if all(v.ok for v in verdicts) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("patterns", nargs="*", help="task ids or globs (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once (default 2)")
    parser.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="task kernels in the bubblewrap sandbox (default), as the lab and `run` start them",
    )
    args = parser.parse_args()
    if not start_sandbox(argparse.Namespace(no_sandbox=not args.sandbox)):
        return 2
    verdicts, seconds = run(args.patterns, args.jobs)
    return report(verdicts, seconds, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
