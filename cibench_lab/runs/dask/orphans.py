"""Imported by the grading forkserver of a Dask worker (:mod:`.remote`): no grading process
outlives the worker.

The forkserver gets SIGKILL when the worker process ends (the parent-death signal, set here, in
the forkserver, whose parent is the worker's main thread: :func:`.remote.prepare_worker`), and
every process it forks — the grading processes — gets SIGKILL when the forkserver ends.
"""

from __future__ import annotations

import os
import signal

PR_SET_PDEATHSIG = 1
WORKER_VAR = "CIBENCH_LAB_DASK_WORKER"  # the worker process's PID, set by the worker


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (at once, when it has ended already)."""
    import ctypes

    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent or parent == 1:
        os.kill(os.getpid(), signal.SIGKILL)


if os.environ.get(WORKER_VAR) == str(os.getppid()):  # in a worker's forkserver only
    die_with_parent()
    os.register_at_fork(after_in_child=die_with_parent)
