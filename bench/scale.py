"""Benchmark: what scales a run — the warm kernel pool, and Dask workers.

pool    the reference replay of a fixed 20-task subset (the first two template tasks of each
        library, by id; ``--all``: every task) with ``--jobs 1``, on fresh kernels (the default
        path) and on warm kernels from the pool (``kernel_pool`` size 1: the next task's kernel
        starts while a task plays), interleaved: ``--rounds`` rounds, fresh then warm, the next
        round warm then fresh (ABBA), so the machine's drift falls on both arms alike. Prints
        per task each arm's median over the rounds, per arm the median of its round totals, the
        ratio of those medians (target >= 1.5) and each round's own ratio, and the peak resident
        memory per kernel in each arm.
start   Start pressed -> answer cell focused, kernel idle, on a lab server with the pool off
        (cold) and one with ``--CIBenchLabApp.kernel_pool_size=1`` (warm), both up at once, the
        Starts alternating between them (bench/scale_start.py); ``--gap`` seconds before each
        (a person reads the task list; the pool refills meanwhile). Targets: warm p95 <= 0.5 x
        cold p95 and <= 1.0 s.
dask    ``run --jobs 1``, ``--jobs 2`` and a local Dask cluster of 2 worker processes on the same
        tasks, ``--dask-rounds`` rounds ABC CBA (bench/scale_dask.py). Target: the Dask speed-up
        >= 0.9 x the ``--jobs 2`` speed-up.

The machine's load average is printed with each part (other work on it moves the numbers).
Ratios measured side by side, not timed tests.

    python bench/scale.py [--all] [--rounds 3] [--starts 20] [--gap 4] [--dask-rounds 2]
        [--no-pool] [--no-start] [--no-dask]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import psutil
from replay import KernelMemory
from scale_dask import dask_half, dask_report
from scale_start import start_half, start_report

from cibench_lab.kernels.pool import PoolSettings
from cibench_lab.kernels.spec import LAUNCHER, ensure_kernelspec
from cibench_lab.play.attempt import Attempts
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import RunObserver, run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.model import Task

PER_LIBRARY = 2
TARGET_REPLAY = 1.5  # warm-pool replay at least this much faster than fresh kernels
ARMS: dict[str, PoolSettings | None] = {"fresh": None, "warm": PoolSettings(size=1)}


def machine() -> str:
    """The CPU model, cores and memory of this machine."""
    info = Path("/proc/cpuinfo").read_text().splitlines()
    model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    memory = psutil.virtual_memory().total / 2**30
    return (
        f"{model or platform.processor()}, {psutil.cpu_count()} CPUs, {memory:.0f} GiB, {platform.platform()}"
    )


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({psutil.cpu_count()} CPUs)"


def subset(lib: TaskLibrary, everything: bool) -> list[Task]:
    """Every task, or the fixed subset: the first ``PER_LIBRARY`` template tasks of each library."""
    tasks = lib.select(None)
    if everything:
        return tasks
    chosen: dict[str, list[Task]] = {}
    for task in lib.select(["cibench_template/*"]):
        picked = chosen.setdefault(task.lib, [])
        if len(picked) < PER_LIBRARY:
            picked.append(task)
    return [t for lib_name in sorted(chosen) for t in chosen[lib_name]]


class KernelRss(KernelMemory):
    """Peak resident memory per kernel: the kernel's Python only (not bubblewrap or the launcher,
    whose command lines name ipykernel too)."""

    def _loop(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self.every):
            for child in me.children(recursive=True):
                try:
                    cmd = child.cmdline()
                    if child.name() == "bwrap" or "ipykernel_launcher" not in cmd or LAUNCHER in cmd:
                        continue
                    rss = child.memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[child.pid] = max(rss, self.peaks.get(child.pid, 0))


class Clock(RunObserver):
    """Seconds per task of a ``--jobs 1`` run: from the previous task's end (or the run's start)
    to this one's end, so the kernel's start counts."""

    def __init__(self) -> None:
        self.last = time.perf_counter()
        self.seconds: dict[str, float] = {}
        self.status: dict[str, str] = {}

    def task_finished(self, task: Task, status: str, detail: str = "") -> None:
        now = time.perf_counter()
        self.seconds[task.id], self.last = now - self.last, now
        self.status[task.id] = status


def replay(attempts: Attempts, tasks: list[Task], name: str, pool: PoolSettings | None) -> Clock:
    clock = Clock()
    asyncio.run(
        run_tasks(
            attempts,
            tasks,
            RunSpec(ReferencePlayer(), "e2e", name, timeout=300, kernel_pool=pool),
            observer=clock,
        )
    )
    failed = [t for t, s in clock.status.items() if s != "done"]
    if failed:
        print(f"warning: {name}: not done: {', '.join(failed)}", file=sys.stderr)
    return clock


def pool_half(lib: TaskLibrary, tasks: list[Task], rounds: int) -> dict:
    """Fresh kernels vs the warm pool, ``--jobs 1``, ``rounds`` rounds ABBA."""
    seconds: dict[str, dict[str, list[float]]] = {side: {t.id: [] for t in tasks} for side in ARMS}
    totals: dict[str, list[float]] = {side: [] for side in ARMS}
    memory: dict[str, list[int]] = {side: [] for side in ARMS}
    loads: list[float] = []
    print(f"pool: {len(tasks)} tasks, --jobs 1, {rounds} rounds; {load()}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="cibench-bench-scale-") as tmp:
        store = Store(f"sqlite:///{Path(tmp) / 'scale.sqlite'}")
        attempts = Attempts(store, lib)
        for r in range(rounds):
            for side in list(ARMS) if r % 2 == 0 else list(ARMS)[::-1]:
                loads.append(os.getloadavg()[0])
                with KernelRss() as sampled:
                    clock = replay(attempts, tasks, f"{side}-{r}", ARMS[side])
                loads.append(os.getloadavg()[0])
                memory[side] += list(sampled.peaks.values())
                for task_id, took in clock.seconds.items():
                    seconds[side][task_id].append(took)
                totals[side].append(sum(clock.seconds.values()))
                print(f"  {side} {r + 1}/{rounds}: {totals[side][-1]:.1f} s; {load()}", file=sys.stderr)
        store.dispose()
    return {"seconds": seconds, "totals": totals, "memory": memory, "loads": loads}


def pool_report(result: dict, tasks: list[Task]) -> list[str]:
    med = {side: {t: statistics.median(v) for t, v in result["seconds"][side].items()} for side in ARMS}
    totals = result["totals"]
    lines = [
        f"\n--jobs 1 replay, fresh kernels vs the warm pool: {len(totals['fresh'])} rounds ABBA, medians"
    ]
    lines.append(f"{'task':<56}{'steps':>6}{'fresh s':>9}{'warm s':>8}{'ratio':>7}")
    for task in tasks:
        f, w = med["fresh"][task.id], med["warm"][task.id]
        lines.append(f"{task.id:<56}{len(task.steps):>6}{f:>9.2f}{w:>8.2f}{f / w:>7.2f}")
    total = {side: statistics.median(totals[side]) for side in ARMS}
    ratio = total["fresh"] / total["warm"]
    label = "all (median of the round totals)"
    lines.append(f"{label:<56}{'':>6}{total['fresh']:>9.2f}{total['warm']:>8.2f}{ratio:>7.2f}")
    paired = ", ".join(f"{f / w:.2f}" for f, w in zip(totals["fresh"], totals["warm"], strict=True))
    loads = result["loads"]
    lines.append(f"each round's fresh/warm: {paired}; load average (1 min) {min(loads):.2f}-{max(loads):.2f}")
    verdict = "meets" if ratio >= TARGET_REPLAY else "MISSES"
    lines.append(
        f"warm-pool replay {ratio:.2f}x faster than fresh kernels ({verdict} the {TARGET_REPLAY}x target)"
    )
    for side, peaks in result["memory"].items():
        mib = sorted(p / 2**20 for p in peaks)
        if mib:
            lines.append(
                f"peak RSS per kernel, {side} ({len(mib)} kernels): median {mib[len(mib) // 2]:.0f} MiB, "
                f"max {mib[-1]:.0f} MiB"
            )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="every task (default: two per library)")
    ap.add_argument("--rounds", type=int, default=3, help="fresh/warm rounds, ABBA (default 3)")
    ap.add_argument("--starts", type=int, default=20, help="Starts per side of the Start measurement")
    ap.add_argument("--gap", type=float, default=4.0, help="seconds before each Start (both sides)")
    ap.add_argument("--task", default="cibench_template/pandas/penguins_raw_tidy", help="the Start task")
    ap.add_argument("--dask-rounds", type=int, default=2, help="rounds of jobs1/jobs2/dask2 (default 2)")
    ap.add_argument("--no-pool", action="store_true", help="skip the replay measurement")
    ap.add_argument("--no-start", action="store_true", help="skip the Start measurement (no browser)")
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask measurement")
    args = ap.parse_args()
    lib = TaskLibrary.load([builtin_dir()])
    tasks = subset(lib, args.all)
    ensure_kernelspec()
    lines: list[str] = [f"bench/scale.py on {machine()}"]
    if not args.no_pool:
        lines += pool_report(pool_half(lib, tasks, args.rounds), tasks)
    if not args.no_start:
        lines += start_report(start_half(args.task, args.starts, args.gap, load))
    if not args.no_dask:
        ids = [t.id for t in tasks]
        lines += dask_report(ids, dask_half(ids, args.dask_rounds))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
