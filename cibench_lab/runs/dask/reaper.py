"""No kernel outlives the Dask worker that started it.

Three layers, each enough when the one before it could not act:

1. a task kernel's launcher watches the process that started it (:mod:`.kernel_launch`) and
   kills its sandbox when that process ends, SIGKILL included;
2. :class:`KernelReaper`, a worker plugin, kills the worker's kernels when the worker closes;
3. :class:`NannyReaper`, a nanny plugin, looks every second at the kernels each worker process
   it runs has listed (a file per attempt in a folder of the nanny's) and kills, with every
   process under it, each kernel whose worker process is gone.

A worker lists a kernel with :func:`track` (its PID and start time, so a PID the system gave to
another process since is never killed) and drops it with :func:`untrack`.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

import psutil
from distributed import Nanny, Worker
from distributed.diagnostics.plugin import NannyPlugin, WorkerPlugin

log = logging.getLogger(__name__)
SWEEP_MS = 1000
NAME = "cibench-lab-kernel-reaper"


def folder(nanny_pid: int) -> Path:
    """Where the worker processes of nanny ``nanny_pid`` list their kernels."""
    return Path(tempfile.gettempdir()) / f"cibench-lab-kernels-{os.getuid()}" / str(nanny_pid)


def _listing(attempt_id: str) -> Path:
    return folder(os.getppid()) / f"{os.getpid()}-{attempt_id}.json"


def track(attempt_id: str, pid: int | None) -> None:
    """List this worker process's kernel of ``attempt_id`` (PID ``pid``) for the reapers."""
    if pid is None:
        return
    try:
        started = psutil.Process(pid).create_time()
    except psutil.Error:
        return
    path = _listing(attempt_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"pid": pid, "started": started}))
    tmp.replace(path)


def untrack(attempt_id: str) -> None:
    _listing(attempt_id).unlink(missing_ok=True)


def kill_tree(pid: int, started: float) -> bool:
    """SIGKILL process ``pid`` (if it is still the one started at ``started``) and all under it."""
    try:
        proc = psutil.Process(pid)
        if abs(proc.create_time() - started) > 0.01:
            return False
        tree = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return False
    for p in tree:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(tree, timeout=5)
    return True


def sweep(where: Path, everything: bool = False) -> int:
    """Kill the listed kernels whose worker process is gone (all of them with ``everything``)."""
    killed = 0
    for path in where.glob("*.json"):
        worker = int(path.name.split("-", 1)[0])
        if not everything and psutil.pid_exists(worker) and _running(worker):
            continue
        try:
            listed = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if kill_tree(int(listed["pid"]), float(listed["started"])):
            log.warning("cibench-lab: killed kernel %s left by worker process %s", listed["pid"], worker)
            killed += 1
        path.unlink(missing_ok=True)
    return killed


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class KernelReaper(WorkerPlugin):
    """Kills this worker process's listed kernels when the worker closes."""

    name = NAME
    idempotent = True  # registered by every run: set up once (a second setup would reap a run's kernels)

    def setup(self, worker: Worker) -> None:
        from .worker import prepare_worker

        prepare_worker(worker.state.nthreads)

    def teardown(self, worker: Worker) -> None:
        mine = f"{os.getpid()}-"
        for path in folder(os.getppid()).glob(f"{mine}*.json"):
            listed = json.loads(path.read_text())
            kill_tree(int(listed["pid"]), float(listed["started"]))
            path.unlink(missing_ok=True)


class NannyReaper(NannyPlugin):
    """In the nanny: every second, kills the kernels of its worker processes that are gone."""

    name = NAME
    restart = False
    idempotent = True

    def setup(self, nanny: Nanny) -> None:
        from tornado.ioloop import PeriodicCallback

        self.where = folder(os.getpid())
        self.where.mkdir(parents=True, exist_ok=True)
        self.callback = PeriodicCallback(self._sweep, SWEEP_MS)
        self.callback.start()

    def _sweep(self) -> None:
        sweep(self.where)

    def teardown(self, nanny: Nanny) -> None:
        self.callback.stop()
        sweep(self.where, everything=True)
