"""The play vocabulary: every word an attempt, a turn and a step's settling are spelled in, once.

Each is a ``Literal`` type (what mypy checks and pydantic validates; the schemas name them in the
OpenAPI document, ``docs/openapi.json``) and a tuple of its words (argparse ``choices``, traitlets
``Enum`` values, the engine's checks).  A low layer (beside the task model), so the schemas, the
engine, the players, the grading and the CLI all read it.  ``src/api.ts`` takes the same words from
the OpenAPI document.
"""

from __future__ import annotations

from typing import Literal, get_args

from typing_extensions import TypeAliasType

#: How an attempt is played: end-to-end (the player's own code carries every step) or oracle (each
#: settled step's reference code runs before the next).
Mode = TypeAliasType("Mode", Literal["e2e", "oracle"])
#: When an end-to-end step's reference is shown to a person (loosest first: play/settings.py, ``tightest``).
Reveal = TypeAliasType("Reveal", Literal["after-step", "after-task", "never"])
#: The grade a person's step keeps: the best turn so far, or the turn it settles with (loosest first).
GradeRule = TypeAliasType("GradeRule", Literal["best", "settling"])
#: What a player's proposal does (players/base.py: Proposal).  ``code`` runs; the others record a
#: turn without running anything: ``empty`` (an interpreter call with no code: a failed tool turn),
#: ``no_action`` and ``invalid`` (a reply with no usable tool call), ``finish`` (a final answer: the
#: step ends without code, as lagent's FinishAction does); ``give_up`` settles the step with no
#: further turn (a replay that ran out of recorded turns).
Action = TypeAliasType("Action", Literal["code", "empty", "no_action", "invalid", "finish", "give_up"])
#: How a step settled (play/rules.py decides it; grading/outcomes.py and src/grade.ts word them).
Outcome = TypeAliasType(
    "Outcome", Literal["passed", "out_of_turns", "turn_cap", "next", "gave_up", "stopped", "answered"]
)
#: What the step driver says happens next in an attempt (play/driver.py).
Next = TypeAliasType("Next", Literal["propose", "run", "reference", "wait", "done"])
#: How a person's lab settings meet the server's (play/settings.py: attempt_settings).
Policy = TypeAliasType("Policy", Literal["free", "tighten", "locked"])

MODES: tuple[Mode, ...] = get_args(Mode.__value__)
REVEALS: tuple[Reveal, ...] = get_args(Reveal.__value__)
GRADE_RULES: tuple[GradeRule, ...] = get_args(GradeRule.__value__)
ACTIONS: tuple[Action, ...] = get_args(Action.__value__)
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome.__value__)
NEXTS: tuple[Next, ...] = get_args(Next.__value__)
POLICIES: tuple[Policy, ...] = get_args(Policy.__value__)


def as_mode(word: str) -> Mode:
    """A stored (or typed) word as a mode (ValueError: it is none)."""
    if word not in MODES:
        raise ValueError(f"mode: {word!r} is not one of {', '.join(MODES)}")
    return word


#: The player of a person's attempt (every other player is a program: players/spec.py).
HUMAN = "human"
