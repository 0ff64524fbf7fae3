"""The Dask half of bench/scale.py: `run --jobs 1`, `--jobs 2` and a local Dask cluster of 2 worker
processes on the same tasks, measured interleaved.

    python bench/scale_dask.py [--all] [--rounds 2] [--json PATH]   # alone: bench/scale.py's 20 tasks

Each configuration plays the tasks with the reference player into a fresh results database (a
`cibench-lab run` process, fresh kernels). The cluster (scheduler and 2 single-thread nanny
workers, tests/dask_cluster.py) is started once, before the first clock starts, and stopped by
PID after the last. Round r plays jobs1, jobs2, dask2, the next round the reverse (ABC CBA), so
drift cancels; the report takes each configuration's median over the rounds. Target: the Dask
speed-up over `--jobs 1` at least 0.9 x the `--jobs 2` speed-up — their ratio is the `--jobs 2`
time over the Dask time, so `--jobs 1` only labels the speed-ups. The load average (1 min) is
printed before and after each run, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from dask_cluster import LocalCluster  # noqa: E402

TARGET = 0.9
CONFIGS = ("jobs1", "jobs2", "dask2")


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
    return {"seconds": seconds, "load_before": load, "load_after": os.getloadavg()[0]}


def dask_half(tasks: list[str], rounds: int) -> dict[str, list[dict]]:
    """Every configuration ``rounds`` times, ABC CBA; {config: [one dict per round]}."""
    found: dict[str, list[dict]] = {c: [] for c in CONFIGS}
    print(f"dask: {len(tasks)} tasks, {rounds} rounds of {', '.join(CONFIGS)}; load {os.getloadavg()[0]:.2f}",
          file=sys.stderr)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="cibench-scale-") as tmp:
        cluster = LocalCluster(Path(tmp) / "cluster").start()
        try:
            for r in range(rounds):
                for config in CONFIGS if r % 2 == 0 else CONFIGS[::-1]:
                    extra = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"]}.get(
                        config, ["--scheduler-file", str(cluster.scheduler_file)]
                    )
                    got = play(tasks, Path(tmp), f"{config}-{r}", extra)
                    found[config].append(got)
                    loads = f"load {got['load_before']:.2f} -> {got['load_after']:.2f}"
                    print(f"  {config} {r + 1}/{rounds}: {got['seconds']:.1f} s; {loads}", file=sys.stderr)
        finally:
            cluster.stop()
    return found


def dask_report(tasks: list[str], found: dict[str, list[dict]]) -> list[str]:
    median = {c: statistics.median(r["seconds"] for r in runs) for c, runs in found.items()}
    n = len(found["jobs1"])
    lines = [f"\n--jobs 1, --jobs 2 and a local Dask cluster of 2 workers: {len(tasks)} tasks, "
             f"{os.cpu_count()} cores, {n} rounds (ABC CBA), medians"]  # fmt: skip
    lines.append(f"  {'':<8}{'median s':>10}{'s/task':>8}{'speed-up':>10}  rounds s (load before/after)")
    for config, runs in found.items():
        each = ", ".join(f"{r['seconds']:.1f} ({r['load_before']:.1f}/{r['load_after']:.1f})" for r in runs)
        speed = median["jobs1"] / median[config]
        lines.append(
            f"  {config:<8}{median[config]:>10.1f}{median[config] / len(tasks):>8.2f}{speed:>9.2f}x  {each}"
        )
    ratio = median["jobs2"] / median["dask2"]
    paired = ", ".join(
        f"{a['seconds'] / b['seconds']:.2f}" for a, b in zip(found["jobs2"], found["dask2"], strict=True)
    )
    ok = ratio >= TARGET
    lines.append(
        f"Dask speed-up / --jobs 2 speed-up = {ratio:.2f} (per round {paired}; target >= {TARGET}): "
        f"{'meets' if ok else 'MISSES'} the target"
    )
    return lines


def main() -> int:
    from scale import subset

    from cibench_lab.tasks.library import TaskLibrary, builtin_dir

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="every built-in task (default: bench/scale.py's 20)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of the three configurations (default 2)")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    args = ap.parse_args()
    tasks = [t.id for t in subset(TaskLibrary.load([builtin_dir()]), args.all)]
    found = dask_half(tasks, args.rounds)
    print("\n".join(dask_report(tasks, found)))
    if args.json:
        args.json.write_text(json.dumps({"tasks": tasks, "results": found}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
