"""Distributed runs against local ones: `run --jobs 1`, `--jobs 2` and a local Dask cluster of
2 worker processes, side by side on the same tasks (the Dask half of bench/scale.py).

    python bench/scale_dask.py [--all | --per-lib N | --tasks ID ...] [--json PATH]

Each configuration plays the tasks with the reference player into a fresh results database
(a `cibench-lab run` process; the cluster's scheduler and workers are started before its clock
starts, and stopped by PID after).  It prints the seconds, the seconds per task, each speed-up
over `--jobs 1`, and the target: the Dask speed-up at least 0.9 × the `--jobs 2` speed-up; with
the load average (1 min) before and after each, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from dask_cluster import LocalCluster  # noqa: E402

from cibench_lab.tasks.library import TaskLibrary, builtin_dir  # noqa: E402

TARGET = 0.9


def subset(per_lib: int | None) -> list[str]:
    """``per_lib`` tasks of each library of the built-in set (sorted ids), or all of them."""
    lib = TaskLibrary.load([builtin_dir()])
    by_lib: dict[str, list[str]] = {}
    for task_id in sorted(lib.tasks):
        by_lib.setdefault(lib.tasks[task_id].lib, []).append(task_id)
    return [t for ids in by_lib.values() for t in (ids if per_lib is None else ids[:per_lib])]


def play(tasks: list[str], folder: Path, name: str, extra: list[str]) -> dict:
    """One `cibench-lab run` of ``tasks``: its wall-clock seconds and the load around it."""
    db = f"sqlite:///{folder / (name + '.sqlite')}"
    argv = [sys.executable, "-m", "cibench_lab.cli", "--db", db, "run", "--player", "reference",
            "--tasks", *tasks, "--run", "bench", "--no-progress", *extra]  # fmt: skip
    load = os.getloadavg()[0]
    began = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{name}: run exited {done.returncode}:\n{done.stderr[-2000:]}")
    return {"seconds": seconds, "per_task": seconds / len(tasks), "load_before": load,
            "load_after": os.getloadavg()[0]}  # fmt: skip


def measure(tasks: list[str], folder: Path) -> dict[str, dict]:
    """``--jobs 1``, ``--jobs 2`` and a 2-worker local Dask cluster on ``tasks``."""
    results = {
        "jobs1": play(tasks, folder, "jobs1", ["--jobs", "1"]),
        "jobs2": play(tasks, folder, "jobs2", ["--jobs", "2"]),
    }
    cluster = LocalCluster(folder / "cluster").start()
    try:
        results["dask2"] = play(tasks, folder, "dask2", ["--scheduler-file", str(cluster.scheduler_file)])
    finally:
        cluster.stop()
    base = results["jobs1"]["seconds"]
    for r in results.values():
        r["speedup"] = base / r["seconds"]
    return results


def report(tasks: list[str], results: dict[str, dict]) -> bool:
    print(f"{len(tasks)} tasks, reference player, {os.cpu_count()} cores")
    print(f"{'':<10}{'seconds':>10}{'s/task':>9}{'speed-up':>10}{'load before/after':>20}")
    for name, r in results.items():
        loads = f"{r['load_before']:.1f}/{r['load_after']:.1f}"
        print(f"{name:<10}{r['seconds']:>10.1f}{r['per_task']:>9.2f}{r['speedup']:>9.2f}x{loads:>20}")
    ratio = results["dask2"]["speedup"] / results["jobs2"]["speedup"]
    ok = ratio >= TARGET
    print(f"Dask speed-up / --jobs 2 speed-up: {ratio:.2f} (target >= {TARGET}): {'OK' if ok else 'MISS'}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    pick = ap.add_mutually_exclusive_group()
    pick.add_argument("--all", action="store_true", help="every built-in task")
    pick.add_argument("--per-lib", type=int, default=2, help="tasks per library (default 2: 20 tasks)")
    pick.add_argument("--tasks", nargs="+", metavar="ID")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    args = ap.parse_args()
    tasks = args.tasks or subset(None if args.all else args.per_lib)
    with tempfile.TemporaryDirectory(prefix="cibench-scale-") as tmp:
        results = measure(tasks, Path(tmp))
    ok = report(tasks, results)
    if args.json:
        args.json.write_text(json.dumps({"tasks": tasks, "results": results}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
