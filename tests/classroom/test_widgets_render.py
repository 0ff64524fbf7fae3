"""The results widget's attempt view says how each step settled in words, as the export does; who
played it; its grades as the class view words them; and an instruction's markdown, rendered with
its raw HTML escaped."""

from __future__ import annotations

import pytest

from cibench_lab.grading.outcomes import grade_words
from cibench_lab.widgets.render import attempt_html

pytestmark = pytest.mark.fast


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


def view_of(player: str, steps: list[dict], participant: str | None = None) -> dict:
    view = {"title": "X", "status": "open", "current_step": 0, "n_steps": 2, "player": player, "steps": steps}
    return {**view, "participant": participant} if participant else view


def test_the_header_names_who_played_never_human():
    member = attempt_html(view_of("human", [], participant="ada"), [])  # a class member's record
    assert "<h4>ada: X</h4>" in member and "played by ada" in member and "human" not in member
    own = attempt_html(view_of("human", []), [], "teach")  # the user's own (GET attempts/{id})
    assert "<h4>teach: X</h4>" in own and "played by teach" in own
    run = attempt_html(view_of("openai:qwen-7b", []), [], "ada")
    assert "player: model qwen-7b" in run and "played by" not in run
    replay = attempt_html(view_of("replay:attempt:" + "a" * 32, []), [])
    assert "player: replay of attempt aaaaaaaa" in replay


def test_grades_read_as_the_class_view_says_them():
    passed = {"passed": True, "score": 1.0, "kind": "num", "profile": "cibench"}
    missed = {"passed": False, "score": 0.0, "kind": "num", "profile": "cibench"}
    partial = {"passed": False, "score": 0.42, "kind": "text", "profile": "cibench"}
    assert [grade_words(g) for g in (passed, missed, partial, None)] == [
        "passed · 1.00",
        "missed · 0.00",
        "missed · 0.42 (pass at 0.999)",
        "–",
    ]
    assert grade_words({"passed": False, "score": None, "kind": "exec"}) == "missed"
    assert grade_words({"passed": False, "score": None, "metric": "qwen_judge"}) == "not graded"
    fair = {"passed": False, "score": 0.5, "kind": "vis", "profile": "fair", "detail": "plot structure 1/2"}
    assert grade_words(fair) == "missed · 0.50 (pass at 1.00)"
    settled = {**step(0, "next", True), "grade": passed}
    turns = [
        {"step": 0, "turn": 0, "code": "x", "grade": missed},
        {"step": 0, "turn": 1, "code": "y", "grade": passed},
    ]
    html = attempt_html(view_of("human", [settled], "ada"), turns)
    assert "Step 1 (num): settled by Next step — passed · 1.00" in html
    assert "Turn 1: missed · 0.00" in html and "Turn 2: passed · 1.00" in html
    assert "not passed" not in html and "score 1.00" not in html  # the old words


def test_an_instructions_markdown_is_rendered_and_its_html_escaped():
    risky = (
        "Print **it** with `print`.\n\n<img src=x onerror=alert(1)> <script>alert(2)</script>\n\n"
        "[here](javascript:alert(3))"
    )
    html = attempt_html(view_of("human", [{**step(0, None, False), "instruction": risky}], "ada"), [])
    assert "<strong>it</strong>" in html and "<code>print</code>" in html
    assert "<img" not in html and "<script" not in html  # shown as text
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html  # markdown-it refuses the link


def test_a_step_not_graded_counts_as_neither_passed_nor_missed_in_an_attempts_label():
    """A Qwen visualization item without a judge's verdict is no "0/1 passed" (the panel's words:
    src/panel/words.ts passedCount)."""
    from cibench_lab.widgets.results import attempt_label

    row = {"task_id": "qwen/vis/q1", "title": "Q1", "status": "done", "current_step": 0, "n_steps": 1}
    row.update({"passed": 0, "not_graded": 1, "created_at": "2026-01-05T09:30:12Z"})
    assert attempt_label(row) == "Q1 · done · not graded · 2026-01-05T09:30"
    assert " · 3/4 passed · 1 not graded · " in attempt_label({**row, "n_steps": 5, "passed": 3})
    assert " · 2/4 passed · " in attempt_label({**row, "n_steps": 4, "passed": 2, "not_graded": 0})
    assert " · 0/1 passed · " in attempt_label({**row, "not_graded": None})  # an older server's row
    opened = {**row, "status": "open", "passed": None, "not_graded": None}
    assert attempt_label(opened) == "Q1 · open · step 1 of 1 · 2026-01-05T09:30"
