"""A local Dask cluster for tests and benchmarks: a scheduler and nanny workers on 127.0.0.1,
each in a process group of its own, stopped by PID (tests/runs/test_cluster_run.py, bench/scale_dask.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

START = 120.0  # seconds the scheduler and its workers get to come up (a loaded machine)


def _dask(*args: str) -> list[str]:
    return [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]]


@dataclass
class LocalCluster:
    folder: Path
    workers: int = 2
    scheduler: subprocess.Popen | None = None
    nannies: list[subprocess.Popen] = field(default_factory=list)

    @property
    def scheduler_file(self) -> Path:
        return self.folder / "scheduler.json"

    def env(self) -> dict[str, str]:
        # grading processes are started by the workers: they must not be daemonic
        return {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}

    def _spawn(self, argv: list[str], log: str) -> subprocess.Popen:
        out = open(self.folder / log, "wb")  # noqa: SIM115 - kept by the process
        return subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=self.env(), start_new_session=True
        )

    def start(self) -> LocalCluster:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.scheduler = self._spawn(
            _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                  "--scheduler-file", str(self.scheduler_file)),
            "scheduler.log",
        )  # fmt: skip
        self._wait(lambda: self.scheduler_file.exists(), "the scheduler file")
        for i in range(self.workers):
            self.nannies.append(self.start_worker(i))
        self._wait(lambda: self.running_workers() >= self.workers, f"{self.workers} workers")
        return self

    def start_worker(self, i: int) -> subprocess.Popen:
        argv = _dask("worker", "--scheduler-file", str(self.scheduler_file), "--nworkers", "1",
                     "--nthreads", "1", "--nanny", "--no-dashboard", "--host", "127.0.0.1",
                     "--preload", "cibench_lab.runs.dask.preload")  # fmt: skip
        return self._spawn(argv, f"worker{i}.log")

    def running_workers(self) -> int:
        return len(self.info()["workers"]) if self.scheduler_file.exists() else 0

    def info(self) -> dict:
        from distributed import Client

        with Client(json.loads(self.scheduler_file.read_text())["address"], timeout=30) as c:
            return c.scheduler_info(n_workers=-1)

    def _wait(self, ready, what: str) -> None:
        deadline = time.monotonic() + START
        while not ready():
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the local Dask cluster did not come up: no {what} in {START:.0f} s")
            time.sleep(0.3)

    def stop(self) -> None:
        for p in [*self.nannies, *([self.scheduler] if self.scheduler else [])]:
            stop_group(p)


def stop_group(p: subprocess.Popen, grace: float = 10.0) -> None:
    """SIGTERM the process group of ``p`` (its leader's PID), SIGKILL what is left after ``grace``."""
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=grace)
    except ProcessLookupError:
        pass
