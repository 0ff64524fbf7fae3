"""How a step settled, in words: the record's ``outcome`` (``tasks/vocabulary.py``: OUTCOMES) as the
transcript export and the results widget say it (the lab's panel has its twin: ``src/grade.ts:
outcomeText``); and a kept grade as the class view and the panel say it (their twin:
``src/panel/words.ts: keptGradeText``), for the results widget."""

from __future__ import annotations

from typing import Any

from .cibench import PASS_SCORE
from .own import all_rules, not_graded

DASH = "–"  # no grade (the lab's DASH)

OUTCOME_WORDS = {
    "passed": "settled at a run without error",
    "next": "settled by Next step",
    "gave_up": "gave up",
    "turn_cap": "settled at the turn cap",
    "out_of_turns": "out of turns",
}


def outcome_word(outcome: str) -> str:
    """An outcome in words (a benchmark's own outcomes too: :mod:`.own`); unknown: itself."""
    for rules in all_rules():
        if outcome in rules.outcome_words:
            return rules.outcome_words[outcome]
    return OUTCOME_WORDS.get(outcome, outcome)


def outcome_words(outcome: str | None, settled: bool) -> str:
    """The outcome's words; ``open`` for a step not settled, ``settled`` for one with no outcome."""
    if not outcome:
        return "settled" if settled else "open"
    return outcome_word(outcome)


def grade_words(grade: dict[str, Any] | None) -> str:
    """A kept grade in words: ``passed · 1.00``, ``missed · 0.00``, ``missed · 0.50 (pass at
    0.999)`` (a partial score beside its bar), ``passed`` / ``missed`` (no score: exec), ``not
    graded`` (a grade that measured nothing: :func:`.own.not_graded`), ``–`` (none)."""
    if not grade:
        return DASH
    if not_graded(grade):
        return "not graded"
    word = "passed" if grade.get("passed") else "missed"
    score = grade.get("score")
    if not isinstance(score, int | float) or isinstance(score, bool):
        return word
    at = None if grade.get("passed") else pass_at(grade)
    bar = "" if at is None else f" (pass at {'1.00' if at >= 1 else f'{at:g}'})"
    return f"{word} · {score:.2f}{bar}"


def pass_at(grade: dict[str, Any]) -> float | None:
    """The score a scored (text, vis) step passes at, for a missed grade with part of it (the
    fair structural plot grade passes at 1; a fair vis grade from SSIM says so in its detail)."""
    score = grade.get("score")
    if not score or score >= 1 or grade.get("ungradable"):
        return None
    if grade.get("kind") == "text":
        return PASS_SCORE["text"]
    if grade.get("kind") != "vis":
        return None
    ssim = grade.get("profile") != "fair" or str(grade.get("detail") or "").startswith("plot SSIM")
    return PASS_SCORE["vis"] if ssim else 1.0
