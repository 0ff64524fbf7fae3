"""Players propose the code for a step's turn.  (Model players come with the models issue.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..tasks.model import Step, Task


@dataclass
class Proposal:
    code: str
    meta: dict


class Player(Protocol):
    name: str

    async def propose(self, task: Task, step: Step, turn: int) -> Proposal: ...


class ReferencePlayer:
    """Replays the task's own code: must score 100 (DESIGN §6 names the exceptions)."""

    name = "reference"

    async def propose(self, task: Task, step: Step, turn: int) -> Proposal:
        return Proposal(code=step.code, meta={})


def make_player(spec: str) -> Player:
    if spec == "reference":
        return ReferencePlayer()
    raise ValueError(f"unknown player {spec!r} (available: reference)")
