"""Play settings: what a start request overrides, what an attempt records, the server's."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from .common import Closed, Count, GradeRule, Reveal, absent


class SettingsOverride(Closed):
    """Play settings a start request overrides (ignored when the server locks them)."""

    show_grades: bool = absent("grades shown before a step settles")
    turn_cap: Count = absent("a person's step settles after this many turns (0: no cap)")
    pause_after: Annotated[int, Field(ge=1)] = absent(
        "seconds without an edit or a run that pause the working clock"
    )
    reveal: Reveal = absent("when an end-to-end step's reference is shown")
    max_turn: Count = absent("a model's step settles at its first error-free turn or here")
    grade_rule: GradeRule = absent(
        "the grade a person's step keeps: best (the best turn so far) or settling (as the step "
        "settles); a player's attempt is always settling"
    )


class PlaySettingsView(Closed):
    """The play settings (``play/settings.py``: PlaySettings, the one model checked as it is made)
    as the API shows them: the server's defaults, an attempt's or a study's recorded settings."""

    show_grades: bool
    turn_cap: int
    pause_after: int = Field(description="seconds without an edit or a run that pause the working clock")
    reveal: Reveal
    max_turn: int
    grade_rule: GradeRule = Field(
        description="best: the best turn so far is kept; settling: as the step settles"
    )


class ServerSettings(Closed):
    defaults: PlaySettingsView
    locked: bool
    guarded: bool = Field(
        description=(
            "a person's settings may only tighten the defaults' turn_cap, reveal, show_grades and "
            "grade_rule (guard_settings; false when locked: they are ignored)"
        )
    )
    turn_timeout: float
    profile: str = Field(description="the profile the lab shows (badges, summaries)")
    profiles: list[str] = Field(description="every profile each turn is graded and stored under")
    kernel_idle_cull: float = Field(
        description="seconds an attempt's kernel may idle before it is stopped (0: never)"
    )
    kernel_unpinned: str | None = Field(
        default=None,
        description=(
            "one line when task kernels run an environment off the pinned lock (built-in tasks may "
            "fail or grade differently; `cibench-lab kernel-env` installs it), else null"
        ),
    )
