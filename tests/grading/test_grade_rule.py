"""The grade a person keeps (grade_rule best | settling), the pass criterion in words, the
summaries of every profile and the attempt rows — on the real Attempts, graders and views,
with recorded turns (no kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_task import TEXT, ZH, attempts_for, printed, start
from sqlalchemy import select

from cibench_lab.errors import BadInput
from cibench_lab.grading.criterion import LATIN_ONLY, criterion, passes
from cibench_lab.grading.kept import kept_turn
from cibench_lab.play.settings import PLAYER_BEST, PlaySettings, attempt_settings
from cibench_lab.store.tables import Attempt, StepRow
from cibench_lab.views.attempt import attempt_view

pytestmark = pytest.mark.fast


@pytest.fixture
def attempts(tmp_path):
    a = attempts_for(tmp_path)
    yield a
    a.store.dispose()


def g(passed: bool = False, score: float | None = 0.0, exe: float = 1.0, tool: float = 1.0) -> dict:
    return {"passed": passed, "score": score, "exec": exe, "tool": tool}


def test_best_ranks_passed_then_score_then_exec_then_tool_and_ties_keep_the_later_turn():
    assert kept_turn([], "best") is None and kept_turn([], "settling") is None
    assert kept_turn([g(True, 1.0), g(False, 0.4)], "best") == 0
    assert kept_turn([g(True, 1.0), g(False, 0.4)], "settling") == 1
    assert kept_turn([g(False, 0.9), g(True, 0.5)], "best") == 1  # passed beats a higher score
    assert kept_turn([g(score=None, exe=1.0), g(score=0.0, exe=0.0)], "best") == 0  # None counts as 0
    assert kept_turn([g(score=0.3, exe=0.0, tool=1.0), g(score=0.3, exe=0.0, tool=0.0)], "best") == 0
    assert kept_turn([g(True, 1.0), g(True, 1.0)], "best") == 1  # a tie keeps the later turn
    with pytest.raises(ValueError, match="grade rule"):
        kept_turn([g()], "last")


@pytest.mark.parametrize("rule, kept", [("best", 0), ("settling", 1)])
def test_a_match_then_a_worse_run_keeps_what_the_rule_says(attempts, rule, kept):
    aid = start(attempts, grade_rule=rule)
    first = attempts.record_turn(aid, 0, printed(TEXT["en"]))
    worse = attempts.record_turn(aid, 0, printed("alpha"))
    assert first["grade"]["passed"] and not worse["grade"]["passed"]  # each turn's own grade, as before
    open_step = attempt_view(attempts, aid, "pat")["steps"][0]
    assert open_step["kept_turn"] == kept and open_step["grade"]["passed"] is (kept == 0)
    settled = attempts.settle(aid, 0, "next")
    assert settled["grade"]["kept_turn"] == kept and settled["grade"]["passed"] is (kept == 0)
    view = attempt_view(attempts, aid, "pat")
    assert view["settings"]["grade_rule"] == rule
    step = view["steps"][0]
    assert step["settled"] and step["kept_turn"] == kept and step["grade"] == settled["grade"]
    with attempts.store.session() as s:
        stored = s.scalar(select(StepRow.grade).where(StepRow.attempt_id == aid, StepRow.index == 0))
    assert {p: stored[p]["kept_turn"] for p in ("cibench", "fair")} == {"cibench": kept, "fair": kept}
    turns = attempts.turns(aid, 0)
    for profile in ("cibench", "fair"):  # the kept grade is that turn's stored grade
        assert {k: v for k, v in stored[profile].items() if k != "kept_turn"} == turns[kept].grade[profile]


def test_each_profile_keeps_its_own_best_run(attempts):
    """A Chinese text step: CIBench's rule reads neither run (0 and 0: the later is kept), fair's
    reads the match of the first run."""
    aid = start(attempts, ZH)
    attempts.record_turn(aid, 0, printed(TEXT["zh"]))
    attempts.record_turn(aid, 0, printed("最高的是 August"))
    grades = attempts.settle(aid, 0, "next")
    assert grades["grade"]["profile"] == "fair" and grades["grade"]["kept_turn"] == 0
    with attempts.store.session() as s:
        stored = s.scalar(select(StepRow.grade).where(StepRow.attempt_id == aid, StepRow.index == 0))
    assert stored["fair"]["kept_turn"] == 0 and stored["fair"]["passed"]
    assert stored["cibench"]["kept_turn"] == 1 and stored["cibench"]["score"] == 0.0


def test_a_step_settled_without_a_run_keeps_no_turn(attempts):
    aid = start(attempts)
    settled = attempts.settle(aid, 0, "next")
    assert settled["grade"]["kept_turn"] is None and not settled["grade"]["passed"]
    assert attempt_view(attempts, aid, "pat")["steps"][0]["kept_turn"] is None


def test_hidden_grades_hide_the_kept_turn_too(attempts):
    aid = start(attempts, show_grades=False)
    attempts.record_turn(aid, 0, printed(TEXT["en"]))
    attempts.record_turn(aid, 0, printed("alpha"))
    step = attempt_view(attempts, aid, "pat")["steps"][0]
    assert step["grade"] is None and step["kept_turn"] is None  # which run was best tells its grade


def test_a_players_attempt_is_graded_when_it_settles(attempts):
    server = PlaySettings()  # the server's default: best, for people
    assert attempt_settings(server, None, person=True).grade_rule == "best"
    assert attempt_settings(server, {"grade_rule": "settling"}, person=True).grade_rule == "settling"
    assert attempt_settings(server, None, person=False).grade_rule == "settling"
    assert attempt_settings(server, {"show_grades": False}, person=False).grade_rule == "settling"
    with pytest.raises(BadInput) as err:
        attempt_settings(server, {"grade_rule": "best"}, person=False)
    assert (
        str(err.value) == PLAYER_BEST == "settings.grade_rule: a player's steps are graded when they settle"
    )
    assert (
        attempt_settings(server, {"grade_rule": "best"}, person=False, policy="locked").grade_rule
        == "settling"
    )
    with pytest.raises(BadInput, match="settings.grade_rule: must be one of best, settling"):
        attempt_settings(server, {"grade_rule": "last"}, person=True)
    # the headless path (`cibench-lab run`) creates its attempts with PlaySettings(): recorded settling
    aid = start(attempts, player="reference")
    with attempts.store.session() as s:
        assert s.get(Attempt, aid).settings["grade_rule"] == "settling"


def test_an_attempt_recorded_before_grade_rule_kept_its_last_turn(attempts):
    aid = start(attempts)
    attempts.record_turn(aid, 0, printed(TEXT["en"]))
    attempts.record_turn(aid, 0, printed("alpha"))
    with attempts.store.session() as s:  # as a row of the previous version holds it
        row = s.get(Attempt, aid)
        row.settings = {k: v for k, v in row.settings.items() if k != "grade_rule"}
    assert PlaySettings.recorded({}).grade_rule == "settling"
    step = attempt_view(attempts, aid, "pat")["steps"][0]
    assert step["kept_turn"] == 1 and not step["grade"]["passed"]
    settled = attempts.settle(aid, 0, "next")
    assert settled["grade"]["kept_turn"] == 1
    with attempts.store.session() as s:  # a settled step stored before kept_turn: its last turn
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == aid, StepRow.index == 0))
        srow.grade = {
            p: {k: v for k, v in grade.items() if k != "kept_turn"} for p, grade in srow.grade.items()
        }
    assert attempt_view(attempts, aid, "pat")["steps"][0]["kept_turn"] == 1


def play_all(attempts, aid: str) -> dict:
    attempts.record_turn(aid, 0, printed(TEXT["en"]))
    attempts.settle(aid, 0, "next")
    attempts.record_turn(aid, 1, printed("41"))
    attempts.settle(aid, 1, "next")
    attempts.settle(aid, 2, "gave_up")
    attempts.record_turn(aid, 3, printed("ok"))
    return attempts.settle(aid, 3, "next")


def test_summaries_of_every_profile_when_done(attempts):
    aid = start(attempts)
    assert attempt_view(attempts, aid, "pat")["summaries"] is None
    play_all(attempts, aid)
    view = attempt_view(attempts, aid, "pat")
    assert set(view["summaries"]) == {"cibench", "fair"}
    assert view["summaries"]["fair"] == view["summary"]
    assert view["summaries"]["cibench"]["text"] == 100.0 and view["summaries"]["cibench"]["num"] == 0.0


def test_step_grades_of_every_profile_when_done(attempts):
    aid = start(attempts)
    play_all(attempts, aid)
    open_view = attempt_view(attempts, start(attempts), "pat")
    assert all(step["grades"] is None for step in open_view["steps"])
    steps = attempt_view(attempts, aid, "pat")["steps"]
    assert all(set(step["grades"]) == {"cibench", "fair"} for step in steps)
    num = steps[1]["grades"]  # "41" printed: CIBench's first-text rule and the fair number rule differ
    assert num["fair"] == steps[1]["grade"]
    assert {profile: g["profile"] for profile, g in num.items()} == {"cibench": "cibench", "fair": "fair"}


def test_attempt_rows_say_passed_steps_language_and_split(attempts):
    done, open_zh = start(attempts), start(attempts, ZH)
    play_all(attempts, done)
    rows = {r["id"]: r for r in attempts.list_for("pat")}
    assert rows[done]["passed"] == 2  # the text and the exec step; the num step missed, vis gave up
    assert (rows[done]["language"], rows[done]["split"]) == ("en", "cibench_template")
    assert rows[open_zh]["passed"] is None
    assert (rows[open_zh]["language"], rows[open_zh]["split"]) == ("zh", "cibench_template_chinese")


def test_criterion_says_how_each_profile_passes_each_kind(attempts):
    expect = {
        ("cibench", "exec"): "passes when it runs without error",
        ("fair", "exec"): "passes when it runs without error",
        ("cibench", "text"): "passes at ROUGE-1 >= 0.999",
        ("fair", "text"): "passes at ROUGE-1 >= 0.999",
        ("cibench", "vis"): "passes at SSIM >= 0.99",
        ("cibench", "num"): "passes when the printed number matches",
        ("fair", "num"): "passes when the printed number matches",
        ("fair", "general"): "passes when the printed values and words match",
        ("cibench", "general"): "passes when the printed output matches",
    }
    for (profile, kind), start_words in expect.items():
        assert criterion(profile, kind, "en").startswith(start_words), (profile, kind)
    fair_vis = criterion("fair", "vis")
    assert fair_vis.startswith("passes when the data match within 0.2 % of the axes' span and every declared")
    assert "SSIM >= 0.99" in fair_vis  # the fallback when a figure carries no structure
    assert criterion("cibench", "text", "zh").endswith(LATIN_ONLY)
    assert LATIN_ONLY == "CIBench's rule reads only Latin letters and digits"
    assert LATIN_ONLY not in criterion("cibench", "text", "en") + criterion("fair", "text", "zh")
    with pytest.raises(ValueError, match="no pass criterion"):
        criterion("fair", "essay")


def test_the_view_gives_the_shown_profiles_criterion_and_no_reference_value(tmp_path):
    for profile in ("cibench", "fair"):
        attempts = attempts_for(tmp_path / profile, profile)
        aid = start(attempts, ZH)
        for step in range(4):
            view = attempt_view(attempts, aid, "pat")
            shown = view["steps"][step]
            assert shown["criterion"] == criterion(profile, shown["kind"], "zh")
            assert shown["passes"] == passes(profile, shown["kind"])  # a text step's, for its badge
            assert TEXT["zh"] not in json.dumps(view, ensure_ascii=False) and "42" not in shown["criterion"]
            attempts.settle(aid, step, "next")
        attempts.store.dispose()


def test_a_text_steps_badge_says_what_passes_as_the_profile_reads_it():
    """The short rule beside a text step's ROUGE-1 score: fair reads the last line, the answer alone or
    named in a sentence (grading/sentence.py); docs/grading.md says both profiles' words."""
    fair = passes("fair", "text")
    assert fair == "to pass: print only the answer, or a sentence naming it, as your last line"
    assert passes("cibench", "text") == "to pass: print the answer's words alone, as your first output"
    assert {passes(p, k) for p in ("fair", "cibench") for k in ("exec", "num", "vis", "general")} == {None}
    guide = " ".join((Path(__file__).parents[2] / "docs" / "grading.md").read_text().split())
    assert fair in guide and passes("cibench", "text") in guide
