"""Verify every task (built-in + imported) and print the total time and the peak kernel memory.

    python bench/verify_all.py [--jobs 2] [PATTERN ...]

Runs the same check as ``cibench-lab tasks verify`` (each reference re-executed in a fresh
kernel, every step compared under every grading profile) and reports what the issue's budget
is about: the full verify should take at most 15 minutes at ``--jobs 2`` on a 2-core machine.
Exits non-zero when any task drifted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cibench_lab.tasks.library import TaskLibrary, default_task_dirs
from cibench_lab.tasks.verify import Verdict, verify_tasks

BUDGET_SECONDS = 15 * 60


def run(patterns: list[str], jobs: int) -> tuple[list[Verdict], float]:
    lib = TaskLibrary.load(default_task_dirs())
    for problem in lib.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    tasks = lib.select(patterns or None)
    columns = (TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    started = time.perf_counter()
    with Progress(*columns, console=Console(stderr=True)) as progress:
        bar = progress.add_task("verify", total=len(tasks))
        verdicts = asyncio.run(verify_tasks(tasks, jobs=jobs, on_done=lambda v: progress.advance(bar)))
    return verdicts, time.perf_counter() - started


def report(verdicts: list[Verdict], seconds: float, jobs: int) -> int:
    bad = [v for v in verdicts if not v.ok]
    for v in bad:
        print(f"DRIFT {v.task_id}: {v.error or ''}")
        for d in v.drifts:
            print(f"      step {d.step + 1} [{d.kind}]: {d.detail}")
    steps = sum(v.steps for v in verdicts)
    peak = max(verdicts, key=lambda v: v.peak_rss or 0, default=None)
    print(f"tasks: {len(verdicts)}  steps: {steps}  drifted tasks: {len(bad)}  jobs: {jobs}")
    budget = "within" if seconds <= BUDGET_SECONDS else "OVER"
    print(f"total time: {seconds:.1f} s ({budget} the {BUDGET_SECONDS // 60}-minute budget)")
    if peak is not None and peak.peak_rss:
        print(f"peak kernel memory: {peak.peak_rss / 2**20:.0f} MiB ({peak.task_id})")
    print(
        "slowest tasks: "
        + ", ".join(f"{v.task_id} {v.seconds:.1f} s" for v in sorted(verdicts, key=lambda v: -v.seconds)[:5])
    )
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("patterns", nargs="*", help="task ids or globs (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once (default 2)")
    args = parser.parse_args()
    verdicts, seconds = run(args.patterns, args.jobs)
    return report(verdicts, seconds, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
