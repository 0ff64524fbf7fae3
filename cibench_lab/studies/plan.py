"""A participant's plan: the study's tasks in playing order, ``[{"task_id", "mode"}, ...]``.

A fixed list is played as listed. A draw takes N tasks per participant with a seed drawn at
enrolment (``enrolment.seed``): the libraries of the pool are shuffled, each library's tasks
shuffled, and tasks taken one library at a time, round robin, so every library gives a task
before any gives a second. The same seed over the same library gives the same plan.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from ..tasks.library import TaskLibrary
from ..tasks.model import Task
from .definition import Draw, StudyDef

SEED_MAX = 2**31 - 1  # seeds fit the enrolment's integer column on every database


def new_seed() -> int:
    return secrets.randbelow(SEED_MAX)


def draw_pool(draw: Draw, library: TaskLibrary) -> list[Task]:
    """The tasks a draw takes from, in id order: ``split`` and ``libs`` when given."""
    return [
        t
        for t in library.select(None)
        if (not draw.split or t.split == draw.split) and (not draw.libs or t.lib in draw.libs)
    ]


def drawn(draw: Draw, library: TaskLibrary, seed: int) -> list[str]:
    """``draw.n`` task ids, balanced across libraries, deterministic given ``seed``."""
    rng = random.Random(seed)
    by_lib: dict[str, list[str]] = {}
    for task in draw_pool(draw, library):
        by_lib.setdefault(task.lib, []).append(task.id)
    libs = sorted(by_lib)
    rng.shuffle(libs)
    queues = []
    for lib in libs:
        ids = by_lib[lib]
        rng.shuffle(ids)
        queues.append(ids)
    out: list[str] = []
    while len(out) < draw.n and any(queues):
        for queue in queues:
            if queue and len(out) < draw.n:
                out.append(queue.pop(0))
    return out


def make_plan(study: StudyDef, library: TaskLibrary, seed: int | None) -> list[dict[str, Any]]:
    """The plan of one enrolment (``seed``: a draw's; unused for a fixed list)."""
    if study.draw is None:
        return [{"task_id": e.task, "mode": e.mode} for e in study.tasks or []]
    assert seed is not None, "a draw needs its enrolment's seed"
    return [{"task_id": t, "mode": study.draw.mode} for t in drawn(study.draw, library, seed)]
