"""Imported first in the grading pool's forkserver: no grading process outlives the pool's owner.

The owner (the lab server, ``run``, a Dask worker: whoever made the :class:`~.pool.Grader`) names
itself in ``CIBENCH_LAB_POOL_OWNER`` before the forkserver starts.  In the forkserver, a thread
waits on the owner's pidfd (else looks at the parent every second) and SIGKILLs the forkserver
when the owner has ended, however it ended (SIGKILL too) and whichever of its threads started the
pool; every process the forkserver forks — the grading processes — gets SIGKILL when the
forkserver ends (the parent-death signal; the forkserver's one forking thread never ends before
it).  The resource tracker then reads the end of its pipe, which only these processes held, and
exits.
"""

from __future__ import annotations

import os
import select
import signal
import threading

OWNER_VAR = "CIBENCH_LAB_POOL_OWNER"
PR_SET_PDEATHSIG = 1
POLL_S = 1.0  # without pidfds: how often the owner is looked for


def die_with_parent() -> None:
    """SIGKILL this process when its parent ends (at once, when it has ended already)."""
    import ctypes

    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent or parent == 1:
        os.kill(os.getpid(), signal.SIGKILL)


def _watch(owner: int) -> None:
    """Return once ``owner`` has ended."""
    try:
        fd = os.pidfd_open(owner)
    except (AttributeError, OSError):
        while os.getppid() == owner:
            threading.Event().wait(POLL_S)
        return
    select.select([fd], [], [])


def _guard(owner: int) -> None:
    _watch(owner)
    os.kill(os.getpid(), signal.SIGKILL)


def start() -> None:
    """In the forkserver of an owner that named itself: the guard thread and the children's signal."""
    owner = os.environ.get(OWNER_VAR, "")
    if not owner.isdigit() or int(owner) != os.getppid():
        return
    threading.Thread(target=_guard, args=(int(owner),), name="cibench-lifeline", daemon=True).start()
    os.register_at_fork(after_in_child=die_with_parent)


start()
