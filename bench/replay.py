"""Benchmark: the engine's reference replay vs plain nbclient on the same notebooks.

Both execute every step's reference code, after the same start code, on the same
`cibench-lab` kernelspec, one fresh kernel per task, in a private copy of the task's
data.  nbclient just executes; the engine also records and grades every turn in a
SQLite store — the overhead this measures.  Tasks alternate between the two (nbclient,
then engine, task by task) so load changes on the machine hit both alike.

    python bench/replay.py            # one task per library
    python bench/replay.py --full     # every task
    python bench/replay.py --tasks 'cibench_template/pandas/*' --repeat 2
    python bench/replay.py --no-scaling --sandbox-cost   # + sandboxed vs plain kernels

Prints per task: seconds for each side, the ratio (target <= 1.05) and the engine's
overhead per step; then ``--jobs 1`` vs ``--jobs 2`` for the engine over the same
tasks, and the peak resident memory of the kernels.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from cibench_lab.kernels.spec import KERNEL_NAME, ensure_kernelspec, start_code
from cibench_lab.play.attempt import Attempts
from cibench_lab.play.workspace import copy_data
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.tasks.library import TaskLibrary, default_task_dirs
from cibench_lab.tasks.model import Task


class KernelMemory:
    """Samples the resident memory of this process's kernel children (peak per kernel)."""

    def __init__(self, every: float = 0.2):
        self.every = every
        self.peaks: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> KernelMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self.every):
            for child in me.children(recursive=True):
                try:
                    if "ipykernel" not in " ".join(child.cmdline()):
                        continue
                    rss = child.memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[child.pid] = max(rss, self.peaks.get(child.pid, 0))


@dataclass
class Timing:
    task: Task
    nbclient: list[float] = field(default_factory=list)
    engine: list[float] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return len(self.task.steps)


def pick(lib: TaskLibrary, full: bool, patterns: list[str] | None) -> list[Task]:
    tasks = lib.select(patterns)
    if full or patterns:
        return tasks
    by_lib: dict[str, Task] = {}
    for task in tasks:  # the first task of each library, preferring the template split
        current = by_lib.get(task.lib)
        if current is None or (task.split == "cibench_template" and current.split != "cibench_template"):
            by_lib[task.lib] = task
    return [by_lib[k] for k in sorted(by_lib)]


def nbclient_run(task: Task, workroot: Path, timeout: float) -> float:
    folder = workroot / f"nb-{task.stem}"
    copy_data(task, folder)
    nb = new_notebook(
        cells=[new_code_cell(start_code(task.rendering.rendering))]
        + [new_code_cell(s.code) for s in task.steps]
    )
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": KERNEL_NAME, "language": "python"}
    started = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    seconds = time.perf_counter() - started
    shutil.rmtree(folder, ignore_errors=True)
    nbformat.validate(nb)
    return seconds


def engine_run(attempts: Attempts, tasks: list[Task], run: str, jobs: int, timeout: float) -> float:
    started = time.perf_counter()
    ids = asyncio.run(
        run_tasks(attempts, tasks, RunSpec(ReferencePlayer(), "e2e", run, timeout=timeout, jobs=jobs))
    )
    seconds = time.perf_counter() - started
    if len(ids) != len(tasks):
        print(f"warning: {run}: {len(tasks) - len(ids)} attempt(s) did not finish", file=sys.stderr)
    return seconds


def side_by_side(
    attempts: Attempts, tasks: list[Task], repeat: int, timeout: float, tmp: Path
) -> list[Timing]:
    timings = [Timing(t) for t in tasks]
    for r in range(repeat):
        for i, timing in enumerate(timings):
            timing.nbclient.append(nbclient_run(timing.task, tmp, timeout))
            timing.engine.append(engine_run(attempts, [timing.task], f"bench-{r}-{i}", 1, timeout))
            print(
                f"  {timing.task.id}: nbclient {timing.nbclient[-1]:.2f}s  engine {timing.engine[-1]:.2f}s",
                file=sys.stderr,
                flush=True,
            )
    return timings


def report(timings: list[Timing]) -> tuple[float, float]:
    print(f"\n{'task':<52}{'steps':>6}{'nbclient s':>12}{'engine s':>10}{'ratio':>8}{'ms/step':>9}")
    nb_total = en_total = steps = 0.0
    for t in timings:
        nb, en = min(t.nbclient), min(t.engine)  # best of the repeats: the least disturbed run
        nb_total, en_total, steps = nb_total + nb, en_total + en, steps + t.steps
        per_step = 1000 * (en - nb) / t.steps
        print(f"{t.task.id:<52}{t.steps:>6}{nb:>12.2f}{en:>10.2f}{en / nb:>8.3f}{per_step:>9.1f}")
    ratio = en_total / nb_total
    overhead = 1000 * (en_total - nb_total) / steps
    print(f"{'all':<52}{int(steps):>6}{nb_total:>12.2f}{en_total:>10.2f}{ratio:>8.3f}{overhead:>9.1f}")
    verdict = "meets" if ratio <= 1.05 else "MISSES"
    mean = sum(sum(t.engine) / len(t.engine) for t in timings) / sum(
        sum(t.nbclient) / len(t.nbclient) for t in timings
    )
    print(
        f"\nratio engine/nbclient: {ratio:.3f} best of runs ({verdict} the 1.05 target), "
        f"{mean:.3f} mean of runs; overhead {overhead:.1f} ms per step"
    )
    return ratio, overhead


def scaling(attempts: Attempts, tasks: list[Task], timeout: float) -> None:
    one = engine_run(attempts, tasks, "bench-jobs-1", 1, timeout)
    two = engine_run(attempts, tasks, "bench-jobs-2", 2, timeout)
    cpus = psutil.cpu_count(logical=True)
    print(f"\nscaling over {len(tasks)} tasks ({cpus} CPUs): --jobs 1 {one:.2f}s, --jobs 2 {two:.2f}s")
    print(f"speed-up {one / two:.2f}x (ideal 2.00x when the machine has 2 idle cores)")


def sandbox_cost(attempts: Attempts, tasks: list[Task], timeout: float) -> None:
    """The engine's replay with sandboxed vs plain kernels, interleaved, best of two each."""
    from cibench_lab.kernels.sandbox import SandboxSetting, configure, current

    before = current()
    runs: dict[bool, list[float]] = {True: [], False: []}
    try:
        for r, enabled in enumerate((True, False, True, False)):
            configure(SandboxSetting(enabled=enabled))
            runs[enabled].append(engine_run(attempts, tasks, f"bench-sandbox-{r}", 1, timeout))
    finally:
        configure(before)
    boxed, plain = min(runs[True]), min(runs[False])
    print(f"\nsandbox over {len(tasks)} tasks: sandboxed {boxed:.2f}s, plain {plain:.2f}s")
    print(f"ratio sandboxed/plain {boxed / plain:.3f} (best of 2 each, interleaved)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="every task (default: one per library)")
    ap.add_argument("--tasks", nargs="+", help="task ids or glob patterns")
    ap.add_argument("--task-dir", action="append", type=Path, help="task directories (default: built-in)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per side; the best is reported")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per cell")
    ap.add_argument("--no-scaling", action="store_true", help="skip the --jobs 1 vs 2 comparison")
    ap.add_argument("--sandbox-cost", action="store_true", help="also: sandboxed vs plain kernels")
    args = ap.parse_args()
    lib = TaskLibrary.load(args.task_dir or default_task_dirs())
    tasks = pick(lib, args.full, args.tasks)
    if not tasks:
        print("no tasks", file=sys.stderr)
        return 2
    ensure_kernelspec()
    print(f"{len(tasks)} tasks, {sum(len(t.steps) for t in tasks)} steps", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="cibench-bench-") as tmp, KernelMemory() as memory:
        store = Store(f"sqlite:///{Path(tmp) / 'bench.sqlite'}")
        attempts = Attempts(store, lib)
        report(side_by_side(attempts, tasks, args.repeat, args.timeout, Path(tmp)))
        if not args.no_scaling:
            scaling(attempts, tasks, args.timeout)
        if args.sandbox_cost:
            sandbox_cost(attempts, tasks, args.timeout)
        store.dispose()
    peaks = sorted(memory.peaks.values())
    if peaks:
        mib = [p / 2**20 for p in peaks]
        print(
            f"\npeak RSS per kernel ({len(mib)} kernels): "
            f"median {mib[len(mib) // 2]:.0f} MiB, max {mib[-1]:.0f} MiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
