"""The step driver's answers, typed: what happens next in an attempt (``next``: a tagged union on
``do``, :data:`~cibench_lab.tasks.vocabulary.NEXTS`) and how a step settled.  Plain dicts at run
time (the REST API sends them as they are: ``handlers/schemas/attempt.py: NextAction``), checked by
mypy where they are made and read."""

from __future__ import annotations

from typing import Any, Literal, TypeAlias, cast

from typing_extensions import NotRequired, TypedDict

from ..tasks.vocabulary import Outcome


class Propose(TypedDict):
    """Ask the player for step ``step``'s next turn."""

    do: Literal["propose"]
    step: int


class Wait(TypedDict):
    """A person plays step ``step`` in the notebook."""

    do: Literal["wait"]
    step: int


class RunTurn(TypedDict):
    """Run the player's ``code`` as step ``step``'s turn ``turn``."""

    do: Literal["run"]
    step: int
    turn: int
    code: str


class RunReference(TypedDict):
    """Oracle mode: run settled step ``step``'s reference ``code``."""

    do: Literal["reference"]
    step: int
    code: str


class Shown(TypedDict):
    step: int
    code: str


class Done(TypedDict):
    """The attempt is over (oracle mode: ``show`` the last step's reference in the notebook)."""

    do: Literal["done"]
    show: NotRequired[Shown]


NextMove: TypeAlias = Propose | Wait | RunTurn | RunReference | Done


class Settled(TypedDict):
    """How a step settled (``Attempts.settle``): its kept grade (the server's profile), the next
    step (None: the attempt is over), the reference code oracle mode runs or shows next."""

    step: int
    outcome: Outcome
    grade: dict[str, Any]
    oracle_code: str | None
    next_step: int | None


class SettledNext(Settled):
    """A settle as the step driver answers it: with what happens ``next``."""

    next: NextMove


def with_next(settled: Settled, nxt: NextMove) -> SettledNext:
    """``settled`` completed with what happens next (the same dict: its keys keep their order)."""
    answer = cast(SettledNext, settled)
    answer["next"] = nxt
    return answer
