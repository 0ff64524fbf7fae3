"""A finished (done or quit) attempt records nothing more: a run on its kernel started after it
finished is not traced, its activity reports are refused (data: tests/exportdb.py, no kernel)."""

from __future__ import annotations

import datetime as dt

import pytest
from exportdb import build
from sqlalchemy import func, select

from cibench_lab.errors import Conflict
from cibench_lab.record.activity import record_activity, record_cell_run
from cibench_lab.store.tables import Attempt, Event

pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("finished-db"))


def run_at(when: dt.datetime) -> dict:
    return {"msg_id": f"m-{when.timestamp()}", "code": "1 + 1", "started_at": when.isoformat() + "Z"}


def cell_runs(built, attempt_id: str) -> int:
    with built.attempts.store.session() as s:
        q = select(func.count()).where(Event.attempt_id == attempt_id, Event.kind == "cell_run")
        return s.scalar(q) or 0


@pytest.mark.parametrize("who", ["alice", "bob"])  # alice finished, bob quit
def test_a_run_after_the_attempt_finished_is_not_traced(built, who):
    attempt_id = built.ids[who]
    built.attempts.set_kernel(attempt_id, f"kernel-of-{who}")
    with built.attempts.store.session() as s:
        row = s.get(Attempt, attempt_id)
        assert row is not None and row.status in ("done", "quit") and row.finished_at is not None
        finished = row.finished_at
    before = cell_runs(built, attempt_id)
    late = record_cell_run(built.attempts, f"kernel-of-{who}", run_at(finished + dt.timedelta(seconds=5)))
    assert late is None and cell_runs(built, attempt_id) == before
    early = record_cell_run(built.attempts, f"kernel-of-{who}", run_at(finished - dt.timedelta(seconds=1)))
    assert early == attempt_id and cell_runs(built, attempt_id) == before + 1  # it ran while open


def test_the_quit_attempts_activity_is_refused(built):
    with built.attempts.store.session() as s:
        row = s.get(Attempt, built.ids["bob"])
        assert row is not None
        step, who = row.current_step, "bob"
    with pytest.raises(Conflict, match=r"^attempt \S+ is quit$"):  # not "finished": it was quit
        record_activity(built.attempts, built.ids["bob"], step, who, {"cell-1": 2})
