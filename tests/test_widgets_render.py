"""The results widget's attempt view says how each step settled in words, as the export does."""

from __future__ import annotations

from cibench_lab.widgets.render import attempt_html


def step(index: int, outcome: str | None, settled: bool) -> dict:
    return {"index": index, "kind": "num", "outcome": outcome, "settled": settled, "instruction": "Print it."}


def test_each_steps_outcome_is_in_words_never_the_records_code():
    view = {
        "task_id": "t/pandas/x",
        "title": "X",
        "status": "open",
        "current_step": 3,
        "n_steps": 4,
        "player": "human",
        "steps": [
            step(0, "next", True),
            step(1, "turn_cap", True),
            step(2, None, True),
            step(3, None, False),
        ],
    }
    html = attempt_html(view, [])
    assert "Step 1 (num): settled by Next step" in html
    assert "Step 2 (num): settled at the turn cap" in html
    assert "Step 3 (num): settled —" in html and "Step 4 (num): open —" in html
    assert ": next —" not in html and "turn_cap" not in html
