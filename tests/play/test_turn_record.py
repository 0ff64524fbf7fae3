"""A turn is recorded as one TurnRecord: its kernel message, times and facts are kept, the same
execution is not recorded twice, and grades computed before another turn came in are redone."""

from __future__ import annotations

import datetime as dt

import pytest
from rules_task import EN, TEXT, attempts_for, start, stdout

from cibench_lab.errors import Conflict
from cibench_lab.grading import TurnOutput
from cibench_lab.play.turns import Graded, TurnRecord

pytestmark = pytest.mark.fast


def test_a_record_keeps_its_message_times_and_facts(tmp_path):
    attempts = attempts_for(tmp_path)
    aid = start(attempts, EN)
    at = dt.datetime(2025, 3, 1, 9, 0, 0, tzinfo=dt.timezone.utc)
    ran = TurnOutput("print('nope')", [stdout("nope")])
    record = TurnRecord(ran, "m-1", at, at + dt.timedelta(seconds=2), {"truncated": True})
    assert attempts.record_turn(aid, 0, record)["turn"] == 0
    (turn,) = attempts.turns(aid, 0)
    assert (turn.msg_id, turn.started_at, turn.finished_at) == ("m-1", at, at + dt.timedelta(seconds=2))
    assert turn.meta == {"truncated": True, "status": "ok"}
    with pytest.raises(Conflict, match="execution m-1 was already recorded"):
        attempts.record_turn(aid, 0, record)


def test_grades_from_before_another_turn_are_redone(tmp_path):
    attempts = attempts_for(tmp_path)
    aid = start(attempts, EN)
    attempts.record_turn(aid, 0, TurnOutput("print('nope')", [stdout("nope")]))
    right = TurnOutput(f"print({TEXT['en']!r})", [stdout(TEXT["en"])])
    stale = Graded({profile: {"passed": False} for profile in ("cibench", "fair")}, with_turns=0)
    result = attempts.record_turn(aid, 0, TurnRecord(right), stale)
    assert result["grade"]["passed"] is True  # graded here: a turn came in since those grades
