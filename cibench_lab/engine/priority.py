"""The CPU priority of a pooled kernel while it waits, and back to normal once it is taken.

A kernel the pool starts ahead (:mod:`.pool`) competes for the CPU with the attempt being
played — the person's kernel, the run's turns and grading — so it can start at ``WAIT_NICE``
(0, off, by default: see there).  The kernel launcher (:mod:`.kernel_launch`) lowers its own
priority when ``NICE_VAR`` is in its environment, before it starts bubblewrap or ipykernel,
so the whole sandbox inherits it.  Taking the kernel (or waiting for one half started) sets
every thread of its processes back to nice 0.  Raising a priority needs ``CAP_SYS_NICE`` or
an ``RLIMIT_NICE`` of at least 20; without either the pool starts its kernels at normal
priority (:func:`waiting_env` adds nothing): a kernel left lower would play slower than a
fresh one.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .memory import children

log = logging.getLogger(__name__)

NICE_VAR = "CIBENCH_LAB_NICE"  # the launcher's: the nice increment it applies to itself
#: 0: pooled kernels wait at normal priority.  Measured with ``bench/scale.py --pool-nice``, back to back
#: on a shared 2-core machine (load 2-3): 1.12x at nice 10 against 1.58x at nice 0 — a niced kernel
#: started during a short task is starved by the machine's other work and the next take waits for it.
WAIT_NICE = 0
CAP_SYS_NICE = 23


def can_restore() -> bool:
    """Whether this process may set a process's nice value back to 0."""
    import resource

    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NICE)
    except (AttributeError, ValueError, OSError):
        soft = 0
    if soft == resource.RLIM_INFINITY or soft >= 20:
        return True
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    caps = next((line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")), "0")
    return bool(int(caps, 16) >> CAP_SYS_NICE & 1)


def waiting_env() -> dict[str, str]:
    """The environment a pooled kernel starts with: this process's, and the launcher's lower
    priority when it can be undone at take (else this process's only)."""
    env = dict(os.environ)
    if WAIT_NICE and can_restore():
        env[NICE_VAR] = str(WAIT_NICE)
    return env


def restore(pid: int | None) -> None:
    """Every thread of ``pid`` and its descendants back at nice 0 (threads made later inherit it)."""
    todo, seen = [pid] if pid else [], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                if os.getpriority(os.PRIO_PROCESS, int(task.name)) != 0:
                    os.setpriority(os.PRIO_PROCESS, int(task.name), 0)
            except ProcessLookupError:
                continue
            except OSError as err:
                log.warning("cibench-lab: a pooled kernel keeps its lower CPU priority: %s", err)
                return
        todo += children(p)
