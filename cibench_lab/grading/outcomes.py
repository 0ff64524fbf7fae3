"""How a step settled, in words: the record's ``outcome`` (``engine/step.py``: OUTCOMES) as the
transcript export and the results widget say it (the lab's panel has its twin: ``src/grade.ts:
outcomeText``)."""

from __future__ import annotations

OUTCOME_WORDS = {
    "passed": "settled at a run without error",
    "next": "settled by Next step",
    "gave_up": "gave up",
    "turn_cap": "settled at the turn cap",
    "out_of_turns": "out of turns",
    "stopped": "stopped at an observation holding error: or Traceback (Qwen's benchmark)",
    "answered": "answered without a further call (Qwen's benchmark)",
}


def outcome_words(outcome: str | None, settled: bool) -> str:
    """The outcome's words; ``open`` for a step not settled, ``settled`` for one with no outcome."""
    if not outcome:
        return "settled" if settled else "open"
    return OUTCOME_WORDS.get(outcome, outcome)
