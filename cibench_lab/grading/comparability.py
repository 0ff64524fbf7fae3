"""Are people's attempts and a model run's comparable?  The conditions that must match, and the check.

Each attempt is reduced to what it was *played under*, as the player met it (``conditions``):

- ``mode`` (e2e | oracle) and ``turns``, the turn limit: a person's ``turn_cap`` beside a player's
  ``max_turn`` (the model-parity preset's ``turn_cap 3`` matches ``max_turn 3``); a person without a cap
  (``turn_cap 0``) matches no model;
- ``show_grades`` and ``reveal`` as the player could see them: a player (model, replay, reference) is
  never shown a grade — its session learns only that a step settled — nor, end-to-end, a reference, so
  it counts as ``show_grades false`` and ``reveal never`` whatever its attempt recorded; oracle mode
  shows each settled step's reference by nature (``reveal oracle`` for both);
- ``grade_rule`` (a player's is always ``settling``), the profile's version (``environment.profiles``),
  ``sandbox`` and ``network`` (``environment.sandbox``; an unsandboxed kernel has the network), the judge
  model(s) of the step grades, the task's content hash and the kernel environment's lock hash
  (``environment.kernel.constraints_sha256``).  What an old attempt did not record reads ``unrecorded``.

Who decides that a step is done differs by nature — a person on Next, Give up or the turn cap, a model at
its first error-free turn — so it is a note of every comparison (``SETTLE_NOTE``), never a mismatch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

HUMAN = "human"
UNRECORDED = "unrecorded"

#: (key, how a report names it), in the order mismatches are listed
FIELDS = (
    ("mode", "mode"),
    ("turns", "turn limit"),
    ("show_grades", "show_grades"),
    ("grade_rule", "grade_rule"),
    ("reveal", "reveal"),
    ("profile_version", "profile version"),
    ("sandbox", "sandbox"),
    ("network", "network"),
    ("judge", "judge model"),
    ("task_hash", "task content hash"),
    ("kernel_env", "kernel environment (lock hash)"),
)
LABELS = dict(FIELDS)

SETTLE_NOTE = (
    "who settles a step differs and is not a mismatch: a person settles on Next, Give up or the turn cap; "
    "a model at its first error-free turn (or after max_turn)"
)


@dataclass(frozen=True)
class Mismatch:
    field: str  # a key of FIELDS
    humans: tuple[Any, ...]  # the distinct values among the people's attempts
    model: Any

    def reason(self) -> str:
        people = ", ".join(shown("humans", self.field, v) for v in self.humans)
        return f"{LABELS[self.field]}: humans {people}; model {shown('model', self.field, self.model)}"


def conditions(
    player: str,
    mode: str,
    settings: dict[str, Any],
    environment: dict[str, Any],
    task_hash: str,
    judges: Iterable[str],
    profile: str,
) -> dict[str, Any]:
    """What one attempt was played under (``settings``: its recorded play settings, complete)."""
    person = player == HUMAN
    sandbox = environment.get("sandbox") or {}
    enabled = sandbox.get("enabled")
    if mode == "oracle":
        reveal = "oracle"
    else:
        reveal = settings["reveal"] if person else "never"
    turns = settings["turn_cap"] if person else max(settings["max_turn"], 1)
    return {
        "mode": mode,
        "turns": turns or None,  # 0: a person without a cap
        "show_grades": bool(settings["show_grades"]) if person else False,
        "grade_rule": settings["grade_rule"],
        "reveal": reveal,
        "profile_version": (environment.get("profiles") or {}).get(profile, UNRECORDED),
        "sandbox": UNRECORDED if enabled is None else bool(enabled),
        "network": UNRECORDED if enabled is None else (not enabled or bool(sandbox.get("network"))),
        "judge": ", ".join(sorted(set(judges))) or "none",
        "task_hash": task_hash,
        "kernel_env": ((environment.get("kernel") or {}).get("constraints_sha256")) or UNRECORDED,
    }


def mismatches(humans: list[dict[str, Any]], model: dict[str, Any]) -> list[Mismatch]:
    """The fields where any of the people's attempts at a task differs from the model's attempt."""
    found = []
    for key, _ in FIELDS:
        values = tuple(sorted({h[key] for h in humans}, key=lambda v: (v is not None, str(v))))
        if any(v != model[key] for v in values):
            found.append(Mismatch(key, values, model[key]))
    return found


def shown(side: str, key: str, value: Any) -> str:
    """A value as a reason says it: the turn limit by its setting's name; hashes cut to 12 digits."""
    if key == "turns":
        if side == "humans":
            return "turn_cap 0 (no cap)" if value is None else f"turn_cap {value}"
        return f"max_turn {value}"
    if key in ("task_hash", "kernel_env") and isinstance(value, str) and value != UNRECORDED:
        return value[:12]
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
