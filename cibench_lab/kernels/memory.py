"""Resident memory of a process and everything it started (a sandboxed kernel is the
launcher, bubblewrap and the kernel under it), read from ``/proc``."""

from __future__ import annotations

import os
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def children(pid: int) -> list[int]:
    """``pid``'s child processes (none when it is gone or /proc does not say)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(p) for p in task.read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def rss(pid: int) -> int:
    """``pid``'s resident bytes (0 when it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(pid: int | None) -> int:
    """Resident bytes of ``pid`` and all its descendants (0 for None)."""
    if pid is None:
        return 0
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += rss(p)
        todo += children(p)
    return total
