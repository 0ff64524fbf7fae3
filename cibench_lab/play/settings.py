"""Per-attempt play settings, recorded with each attempt: two attempts are comparable only
when they were played under the same settings (docs/architecture.md, "Comparability")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..errors import BadInput
from ..tasks.vocabulary import GRADE_RULES, REVEALS, Policy

#: What an attempt recorded before grade_rule existed was graded by: its last turn.
RECORDED_GRADE_RULE = "settling"
PLAYER_BEST = "settings.grade_rule: a player's steps are graded when they settle"


@dataclass(frozen=True)
class PlaySettings:
    show_grades: bool = True  # grades shown before a step settles
    turn_cap: int = 0  # a person's step settles after this many turns (0 = no cap)
    pause_after: int = 300  # seconds without an edit or a run that pause the working clock
    reveal: str = "after-task"  # when an end-to-end step's reference is shown
    max_turn: int = 3  # a model's step settles at its first error-free turn or here
    grade_rule: str = "best"  # a person's kept grade: the best turn so far, or as the step settles

    @classmethod
    def merge(cls, base: PlaySettings, override: dict[str, Any] | None) -> PlaySettings:
        values = asdict(base)
        known = {f.name: f.type for f in fields(cls)}
        for key, value in (override or {}).items():
            if key not in known:
                raise BadInput(f"settings.{key}: unknown setting (known: {', '.join(known)})")
            values[key] = value
        s = cls(**values)
        s.validate()
        return s

    @classmethod
    def recorded(cls, values: dict[str, Any]) -> PlaySettings:
        """The settings an attempt row holds (rows from before a setting existed get the
        value they were played under)."""
        return cls(**{"grade_rule": RECORDED_GRADE_RULE, **values})

    def validate(self) -> None:
        if not isinstance(self.show_grades, bool):
            raise BadInput("settings.show_grades: must be true or false")
        for name in ("turn_cap", "max_turn"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise BadInput(f"settings.{name}: must be a whole number >= 0")
        pause = self.pause_after
        if not isinstance(pause, int) or isinstance(pause, bool) or pause < 1:
            raise BadInput("settings.pause_after: must be a whole number of seconds >= 1")
        if self.reveal not in REVEALS:
            raise BadInput(f"settings.reveal: must be one of {', '.join(REVEALS)}")
        if self.grade_rule not in GRADE_RULES:
            raise BadInput(f"settings.grade_rule: must be one of {', '.join(GRADE_RULES)}")

    def for_player(self) -> PlaySettings:
        """A player's (model, replay, reference) attempt: its steps are graded when they settle."""
        return replace(self, grade_rule="settling")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: How a person's lab settings (sent with Start) meet the server's (:data:`POLICIES`): ``free`` they
#: replace them, ``tighten`` they may only tighten the play rules (:func:`tightest`), ``locked`` they
#: are ignored.  REVEALS and GRADE_RULES are loosest first.


def tightest(server: PlaySettings, person: PlaySettings) -> PlaySettings:
    """``person``'s settings, each play rule no looser than ``server``'s (docs/classroom.md):
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
