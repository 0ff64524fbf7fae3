"""The columns of each exported table, in order; docs/exports.md documents every one (a test
checks both ways)."""

from __future__ import annotations

from ...grading.own import all_rules
from ...grading.profile import PROFILES
from ...grading.summary import METRICS
from ...play.settings import PlaySettings

SETTINGS = tuple(PlaySettings.__dataclass_fields__)
STEP_GRADE = ("score", "passed", "kept_turn")
TURN_GRADE = ("score", "passed")
#: The questionnaire's answers are columns ``answer_<field name>`` of the participants table.
ANSWER_PREFIX = "answer_"


def _per_profile(fields: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{p}_{f}" for p in PROFILES for f in fields)


ATTEMPTS = (
    "attempt_id",
    "task_id",
    "split",
    "lib",
    "task_hash",
    "mode",
    "player",
    "participant",
    "study",
    "protocol",
    "run",
    "status",
    "n_steps",
    "steps_settled",
    "created_at",
    "finished_at",
    "working_seconds",
    *SETTINGS,
    "kernel_env_sha256",
    "python",
    "sandbox",
    "network",
    "profile_version",
    *_per_profile(METRICS),
    *_per_profile(tuple(f"{rules.name}_{m}" for rules in all_rules() for m in rules.measure_names)),
)
STEPS = (
    "attempt_id",
    "step",
    "kind",
    "opened_at",
    "first_run_at",
    "settled_at",
    "outcome",
    "turns",
    "working_seconds",
    "note",
    *_per_profile(STEP_GRADE),
)
TURNS = (
    "attempt_id",
    "step",
    "turn",
    "msg_id",
    "started_at",
    "finished_at",
    "seconds",
    "status",
    "error",
    "truncated",
    "code",
    "stdout",
    "stderr",
    "result",
    "error_text",
    "images",
    "image_sha256",
    *_per_profile(TURN_GRADE),
)
EVENTS = ("event_id", "attempt_id", "kind", "at", "step", "detail")
PARTICIPANTS = ("participant", "study", "consent_at", "enrolled_at", "finished_at", "seed", "plan")

TABLES = {
    "attempts": ATTEMPTS,
    "steps": STEPS,
    "turns": TURNS,
    "events": EVENTS,
    "participants": PARTICIPANTS,
}
