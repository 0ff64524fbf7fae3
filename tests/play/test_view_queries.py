"""The attempt view (``GET attempts/{id}``) reads the database a fixed number of times, however
many steps, turns and edits the attempt has (views/attempt.py), and the class view's progress
(``GET classes/{name}/progress``) however many members the class has (views/classroom.py; no
kernel: recorded turns)."""

from __future__ import annotations

import datetime as dt

import pytest
from rules_task import EN, TEXT, attempts_for, printed, start
from sqlalchemy import event, select

from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.record.worktime import ACTIVITY, CELL_RUN
from cibench_lab.store.tables import Event, StepRow, Turn
from cibench_lab.views.attempt import attempt_view
from cibench_lab.views.classroom import class_progress

pytestmark = pytest.mark.fast

#: the attempt, its owner, its steps, its turns (counts, times, the open step's grades), its edits,
#: the times of its traced runs (read in SQL: their code is not loaded)
QUERIES = 6


@pytest.fixture
def attempts(tmp_path):
    a = attempts_for(tmp_path)
    yield a
    a.store.dispose()


def counting(attempts, read, *args) -> tuple[dict, list[str]]:
    """What ``read(attempts, *args)`` answers, and every SQL statement it ran."""
    statements: list[str] = []

    def seen(_conn, _cursor, statement, *_):
        statements.append(statement)

    event.listen(attempts.store.engine, "before_cursor_execute", seen)
    try:
        view = read(attempts, *args)
    finally:
        event.remove(attempts.store.engine, "before_cursor_execute", seen)
    return view, statements


def view_counting(attempts, attempt_id: str) -> tuple[dict, list[str]]:
    return counting(attempts, attempt_view, attempt_id, "pat")


def edit(attempts, attempt_id: str, step: int, seconds_after_open: float) -> None:
    with attempts.store.session() as s:
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
        at = srow.opened_at + dt.timedelta(seconds=seconds_after_open)
        s.add(Event(attempt_id=attempt_id, kind=ACTIVITY, at=at, detail={"step": step}))


def test_the_view_needs_the_same_queries_for_one_step_as_for_many(attempts):
    aid = start(attempts, pause_after=60)
    view, first = view_counting(attempts, aid)
    assert [s["turns"] for s in view["steps"]] == [0]
    assert len(first) <= QUERIES, first

    attempts.record_turn(aid, 0, printed("alpha"))
    attempts.record_turn(aid, 0, printed(TEXT["en"]))
    edit(attempts, aid, 0, 1)
    attempts.settle(aid, 0, "next")
    for n in range(3):
        attempts.record_turn(aid, 1, printed(str(40 + n)))
        edit(attempts, aid, 1, n)
    attempts.settle(aid, 1, "next")
    attempts.record_turn(aid, 2, printed("no plot"))
    edit(attempts, aid, 2, 0.5)
    view, later = view_counting(attempts, aid)

    assert len(later) == len(first), later
    assert [s["turns"] for s in view["steps"]] == [2, 3, 1]
    open_step = view["steps"][2]
    assert open_step["grade"] is not None and open_step["kept_turn"] == 0  # the open step's grade, read too
    assert view["steps"][0]["grade"]["passed"] and view["steps"][0]["kept_turn"] == 1  # best: the match
    assert all(s["working_seconds"] is not None for s in view["steps"])


def test_the_folded_turns_give_the_working_clock_its_turns_and_edits(attempts):
    aid = start(attempts, pause_after=2)
    attempts.record_turn(aid, 0, printed("alpha"))
    with attempts.store.session() as s:  # opened an hour ago; a 100 s run from 10 s; an edit at 200 s
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == aid, StepRow.index == 0))
        srow.opened_at -= dt.timedelta(hours=1)
        turn = s.scalar(select(Turn).where(Turn.attempt_id == aid))
        turn.started_at = srow.opened_at + dt.timedelta(seconds=10)
        turn.finished_at = srow.opened_at + dt.timedelta(seconds=110)
    edit(attempts, aid, 0, 200)
    view, _ = view_counting(attempts, aid)
    # the gaps before and after the run count up to pause_after (2 each), the run whole, then away (2)
    assert view["steps"][0]["working_seconds"] == 2 + 100 + 2 + 2


def test_a_traced_run_counts_whole_and_its_code_is_not_read(attempts):
    aid = start(attempts, pause_after=2)
    with attempts.store.session() as s:  # opened an hour ago; an exploration run from 10 s to 310 s
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == aid, StepRow.index == 0))
        srow.opened_at -= dt.timedelta(hours=1)
        started, finished = (srow.opened_at + dt.timedelta(seconds=x) for x in (10, 310))
        times = {"started_at": started.isoformat() + "Z", "finished_at": finished.isoformat() + "Z"}
        run = {"step": 0, "msg_id": "m1", "code": "x = 'not read'\n" * 500, **times}
        s.add(Event(attempt_id=aid, kind=CELL_RUN, at=finished, detail=run))
    edit(attempts, aid, 0, 400)
    view, statements = view_counting(attempts, aid)
    # the gaps around the run count up to pause_after (2 each), the run whole, then away (2)
    assert view["steps"][0]["working_seconds"] == 2 + 300 + 2 + 2
    runs = [q for q in statements if "json_extract" in q.lower()]
    # the run's times are read by SQL; its detail (with the code) is never selected whole
    assert len(runs) == 1 and runs[0].count("event.detail") == runs[0].lower().count(
        "json_extract(event.detail"
    )


#: the attempts with their participants, their steps, and all their working clocks: their turns and
#: their events (points and traced runs), however many members and attempts the class has
CLASS_QUERIES = 4


def member_plays(attempts, who: str) -> None:
    """``who`` starts the task, passes step 1 after an edit and a traced run, and runs step 2 once."""
    task = attempts.library.get(EN)
    aid = attempts.create(NewAttempt(task, "e2e", "human", who, PlaySettings(pause_after=60), {}))
    attempts.record_turn(aid, 0, printed(TEXT["en"]))
    edit(attempts, aid, 0, 1)
    with attempts.store.session() as s:
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == aid, StepRow.index == 0))
        at = srow.opened_at + dt.timedelta(seconds=2)
        times = {"started_at": at.isoformat() + "Z", "finished_at": at.isoformat() + "Z"}
        s.add(Event(attempt_id=aid, kind=CELL_RUN, at=at, detail={"step": 0, "msg_id": "m", **times}))
    attempts.settle(aid, 0, "next")
    attempts.record_turn(aid, 1, printed("41"))
    edit(attempts, aid, 1, 0.5)


def test_the_class_progress_needs_the_same_queries_for_two_members_as_for_six(attempts):
    names = [f"member{n}" for n in range(6)]
    for who in names[:2]:
        member_plays(attempts, who)
    small, two = counting(attempts, class_progress, "stats", names[:2])
    for who in names[2:]:
        member_plays(attempts, who)
    large, six = counting(attempts, class_progress, "stats", names)

    assert len(small["attempts"]) == 2 and len(large["attempts"]) == 6
    assert len(two) == len(six) <= CLASS_QUERIES, six
    assert all(row["current_step"] == 1 and row["passed"] == 1 for row in large["attempts"])
    assert all(row["step_seconds"] is not None for row in large["attempts"])
    # the traced runs' times are read in SQL, in the one query of every attempt's events
    (events,) = [q for q in six if "json_extract" in q.lower()]
    assert events.count("event.detail") == events.lower().count("json_extract(event.detail")
