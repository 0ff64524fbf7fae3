"""Per-attempt play settings, recorded with each attempt: two attempts are comparable only
when they were played under the same settings (docs/architecture.md, "Comparability")."""

from __future__ import annotations

from dataclasses import asdict, fields, replace
from typing import Annotated, Any

from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from ..errors import BadInput
from ..tasks.vocabulary import GRADE_RULES, REVEALS, GradeRule, Policy, Reveal

#: What an attempt recorded before grade_rule existed was graded by: its last turn.
RECORDED_GRADE_RULE: GradeRule = "settling"
PLAYER_BEST = "settings.grade_rule: a player's steps are graded when they settle"

Whole = Annotated[int, Field(ge=0)]
#: Each setting's refusal (``settings.NAME: ...``), in the order they are checked.
REFUSALS = {
    "show_grades": "must be true or false",
    "turn_cap": "must be a whole number >= 0",
    "max_turn": "must be a whole number >= 0",
    "pause_after": "must be a whole number of seconds >= 1",
    "reveal": f"must be one of {', '.join(REVEALS)}",
    "grade_rule": f"must be one of {', '.join(GRADE_RULES)}",
}


@dataclass(frozen=True, config=ConfigDict(strict=True, extra="forbid"))
class PlaySettings:
    """The play settings: the server's defaults, and what each attempt is recorded with.  Checked as
    they are made (also by ``dataclasses.replace``; strict: ``"3"`` or ``True`` is no turn cap):
    :meth:`of` says the first setting out of its range as BadInput."""

    show_grades: bool = True  # grades shown before a step settles
    turn_cap: Whole = 0  # a person's step settles after this many turns (0 = no cap)
    pause_after: Annotated[int, Field(ge=1)] = 300  # seconds without an edit or a run pause the clock
    reveal: Reveal = "after-task"  # when an end-to-end step's reference is shown
    max_turn: Whole = 3  # a model's step settles at its first error-free turn or here
    grade_rule: GradeRule = "best"  # a person's kept grade: the best turn so far, or as the step settles

    @classmethod
    def of(cls, values: dict[str, Any]) -> PlaySettings:
        """The settings ``values`` name (the rest their defaults); BadInput says the first setting
        that is unknown or out of its range, as ``settings.NAME: ...``."""
        known = [f.name for f in fields(cls)]
        for key in values:
            if key not in known:
                raise BadInput(f"settings.{key}: unknown setting (known: {', '.join(known)})")
        try:
            return cls(**values)
        except ValidationError as err:
            bad = {str(e["loc"][0]) for e in err.errors()}
            name = next(n for n in REFUSALS if n in bad)
            raise BadInput(f"settings.{name}: {REFUSALS[name]}") from None

    @classmethod
    def merge(cls, base: PlaySettings, override: dict[str, Any] | None) -> PlaySettings:
        return cls.of({**base.as_dict(), **(override or {})})

    @classmethod
    def recorded(cls, values: dict[str, Any]) -> PlaySettings:
        """The settings an attempt row holds (rows from before a setting existed get the
        value they were played under)."""
        return cls(**{"grade_rule": RECORDED_GRADE_RULE, **values})

    def validate(self) -> None:
        """BadInput unless every setting is in its range (as made, they are)."""
        type(self).of(self.as_dict())

    def for_player(self) -> PlaySettings:
        """A player's (model, replay, reference) attempt: its steps are graded when they settle."""
        return replace(self, grade_rule="settling")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: How a person's lab settings (sent with Start) meet the server's (:data:`POLICIES`): ``free`` they
#: replace them, ``tighten`` they may only tighten the play rules (:func:`tightest`), ``locked`` they
#: are ignored.  REVEALS and GRADE_RULES are loosest first.


def tightest(server: PlaySettings, person: PlaySettings) -> PlaySettings:
    """``person``'s settings, each play rule no looser than ``server``'s (docs/teach/reference.md):
    ``turn_cap`` the smaller cap (0, no cap, is the loosest); ``reveal`` the later of after-step,
    after-task, never; ``show_grades`` on only if both are; ``grade_rule`` ``settling`` if either
    is (the settling run counts, not the best). ``pause_after`` and ``max_turn`` (a model's
    budget) are no play rule of a person's grade: the person's."""
    caps = [cap for cap in (server.turn_cap, person.turn_cap) if cap]
    return replace(
        person,
        turn_cap=min(caps) if caps else 0,
        reveal=max(server.reveal, person.reveal, key=REVEALS.index),
        show_grades=server.show_grades and person.show_grades,
        grade_rule=max(server.grade_rule, person.grade_rule, key=GRADE_RULES.index),
    )


def attempt_settings(
    base: PlaySettings, override: dict[str, Any] | None, person: bool, policy: Policy = "free"
) -> PlaySettings:
    """The settings a new attempt is recorded with: ``base`` (the server's) with the browser's
    ``override`` as ``policy`` lets it (:data:`POLICIES`); a player's attempt always settles its
    grades (asking ``best`` for one is refused)."""
    override = None if policy == "locked" else override
    settings = PlaySettings.merge(base, override)
    if policy == "tighten":
        settings = tightest(base, settings)
    if person:
        return settings
    if (override or {}).get("grade_rule") == "best":
        raise BadInput(PLAYER_BEST)
    return settings.for_player()
