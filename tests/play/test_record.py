"""The participant record's routes: pause / resume of the working clock, notes, edit counts
(record/activity.py, handlers/record.py). Times are moved in the database instead of waited for."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import PROBE_ID
from sqlalchemy import select

from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.record.activity import NOTE_MAX
from cibench_lab.store.tables import Event, StepRow

pytestmark = pytest.mark.fast


def _attempt(services, participant: str, player: str = "human", pause_after: int = 300) -> str:
    task = services.library.get(PROBE_ID)
    new = NewAttempt(task, "e2e", player, participant, PlaySettings(pause_after=pause_after), {})
    return services.attempts.create(new)


def _events(services, attempt_id: str) -> list[tuple[str, dict]]:
    with services.store.session() as s:
        q = select(Event.kind, Event.detail).where(Event.attempt_id == attempt_id)
        return [tuple(row) for row in s.execute(q.order_by(Event.at, Event.id))]


def _back(services, attempt_id: str, seconds: float) -> dt.datetime:
    """Move the step's opening and every event ``seconds`` into the past; the new opening (naive UTC:
    the API writes a time as its naive UTC ISO form and a ``Z``)."""
    with services.store.session() as s:
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id))
        srow.opened_at -= dt.timedelta(seconds=seconds)
        for event in s.scalars(select(Event).where(Event.attempt_id == attempt_id)):
            event.at -= dt.timedelta(seconds=seconds)
        return srow.opened_at.replace(tzinfo=None)


@pytest.fixture
def services(jp_serverapp):
    return jp_serverapp.web_app.settings["cibench_lab"]


async def test_a_pause_and_its_resume_are_stored_and_count_nothing(services, api):
    attempt_id = _attempt(services, services.participant)
    code, view = await api("POST", f"attempts/{attempt_id}/pause", {"cause": "button"})
    assert code == 200 and view["paused"] is True, view
    assert view["pauses"][0]["end"] is None and view["pauses"][0]["cause"] == "button"
    code, err = await api("POST", f"attempts/{attempt_id}/pause", {})
    assert code == 409 and "already paused" in err["error"], err
    opened = _back(services, attempt_id, 100)  # opened 100 s ago, paused 10 s after
    with services.store.session() as s:
        s.scalar(select(Event).where(Event.attempt_id == attempt_id)).at = opened + dt.timedelta(seconds=10)
    code, view = await api("POST", f"attempts/{attempt_id}/resume", {"cause": "command"})
    assert code == 200 and view["paused"] is False, view
    (pause,) = view["pauses"]
    assert pause["cause"] == "button" and pause["resumed_by"] == "command" and pause["end"] is not None
    assert 10 <= view["steps"][0]["working_seconds"] < 12, view["steps"][0]  # the 90 s paused count 0
    code, err = await api("POST", f"attempts/{attempt_id}/resume", {})
    assert code == 409 and "not paused" in err["error"], err
    assert [k for k, _ in _events(services, attempt_id)] == ["pause", "resume"]
    assert _events(services, attempt_id)[0][1] == {"step": 0, "cause": "button"}


async def test_an_edit_while_paused_resumes_the_clock(services, api):
    attempt_id = _attempt(services, services.participant)
    assert (await api("POST", f"attempts/{attempt_id}/pause", {}))[0] == 200
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0, "cells": {"c1": 2}})
    assert code == 200 and body["resumed"] is True, body
    code, view = await api("GET", f"attempts/{attempt_id}")
    assert view["paused"] is False and view["pauses"][0]["resumed_by"] == "edit", view["pauses"]
    kinds = [(k, d.get("cause")) for k, d in _events(services, attempt_id)]
    assert kinds == [("pause", "button"), ("resume", "edit"), ("activity", None), ("cell_edits", None)]
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0})
    assert code == 200 and body["resumed"] is False


async def test_an_idle_gap_is_recorded_as_a_pause_when_noticed(services, api):
    attempt_id = _attempt(services, services.participant, pause_after=2)
    opened = _back(services, attempt_id, 3600)  # left alone for an hour, then an edit
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0})
    assert code == 200 and body["resumed"] is False and 2 <= body["working_seconds"] < 3, body
    code, view = await api("GET", f"attempts/{attempt_id}")
    (pause,) = view["pauses"]
    assert pause["cause"] == "idle" and pause["resumed_by"] == "edit" and view["paused"] is False
    assert pause["start"] == (opened + dt.timedelta(seconds=2)).isoformat() + "Z", pause
    idle = _events(services, attempt_id)[0][1]
    assert idle["cause"] == "idle" and idle["detected_at"] > pause["start"]
    # the idle rule and the recorded pause agree: the hour counts pause_after once
    assert 2 <= view["steps"][0]["working_seconds"] < 3, view["steps"][0]


async def test_a_pause_ends_when_its_step_settles(services, api):
    attempt_id = _attempt(services, services.participant)
    assert (await api("POST", f"attempts/{attempt_id}/pause", {"cause": "command"}))[0] == 200
    code, body = await api("POST", f"attempts/{attempt_id}/next", {"step": 0})
    assert code == 200, body
    view = body["attempt"]
    assert view["paused"] is False and view["pauses"][0]["resumed_by"] == "settle", view["pauses"]
    assert view["pauses"][0]["end"] == view["steps"][0]["settled_at"]
    assert view["steps"][0]["opened_at"] < view["steps"][0]["settled_at"] <= view["steps"][1]["opened_at"]
    assert view["steps"][0]["first_run_at"] is None and view["steps"][1]["settled_at"] is None


async def test_only_a_persons_own_open_attempt_pauses(services, api):
    theirs = _attempt(services, "someone-else")
    code, err = await api("POST", f"attempts/{theirs}/pause", {})
    assert code == 403 and "another participant" in err["error"], err
    model = _attempt(services, services.participant, player="reference")
    code, err = await api("POST", f"attempts/{model}/pause", {})
    assert code == 409 and "a person's attempt" in err["error"], err
    mine = _attempt(services, services.participant)
    code, err = await api("POST", f"attempts/{mine}/pause", {"cause": "idle"})
    assert code == 400 and err["error"].startswith("cause:"), err
    assert _events(services, theirs) == _events(services, model) == _events(services, mine) == []


async def test_notes_are_kept_per_step_with_every_save(services, api):
    attempt_id = _attempt(services, services.participant)
    for text in ("first thought", "first thought, then more"):
        code, body = await api("POST", f"attempts/{attempt_id}/note", {"step": 0, "text": text})
        assert code == 200 and body == {"step": 0, "note": text}, body
    code, view = await api("GET", f"attempts/{attempt_id}")
    assert view["steps"][0]["note"] == "first thought, then more"
    assert [d["text"] for k, d in _events(services, attempt_id) if k == "note"] == [
        "first thought",
        "first thought, then more",
    ]
    code, err = await api("POST", f"attempts/{attempt_id}/note", {"step": 0, "text": "x" * (NOTE_MAX + 1)})
    assert code == 400 and err["error"].startswith("text:") and str(NOTE_MAX) in err["error"], err
    code, err = await api("POST", f"attempts/{attempt_id}/note", {"step": 1, "text": "later"})
    assert code == 400 and "opened step" in err["error"], err
    code, err = await api(
        "POST", f"attempts/{_attempt(services, 'someone-else')}/note", {"step": 0, "text": "x"}
    )
    assert code == 403, err
    code, view = await api("GET", f"attempts/{attempt_id}")
    assert view["steps"][0]["note"] == "first thought, then more"


async def test_edit_counts_per_cell_are_stored_and_traced(services, api):
    attempt_id = _attempt(services, services.participant)
    body = {"step": 0, "cells": {"cell-a": 3, "cell-b": 0, "cell-c": 1}}
    assert (await api("POST", f"attempts/{attempt_id}/activity", body))[0] == 200
    code, trace = await api("GET", f"attempts/{attempt_id}/trace")
    assert code == 200 and trace["runs"] == [], trace
    assert [(e["cell_id"], e["count"], e["step"]) for e in trace["edits"]] == [
        ("cell-a", 3, 0),
        ("cell-c", 1, 0),
    ]
    code, err = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0, "cells": {"cell-a": -1}})
    assert code == 400 and "cells.cell-a" in err["error"], err
    code, err = await api("GET", f"attempts/{_attempt(services, 'someone-else')}/trace")
    assert code == 403, err


async def test_a_run_report_while_paused_resumes_with_cause_run(services, api):
    attempt_id = _attempt(services, services.participant)
    assert (await api("POST", f"attempts/{attempt_id}/pause", {"cause": "command"}))[0] == 200
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0, "runs": {"m1": "cell-a"}})
    assert code == 200 and body["resumed"] is True, body
    assert body["working_seconds"] is None  # a report of runs alone is answered without the clock
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0, "runs": {"m2": "cell-a"}})
    assert code == 200 and body["resumed"] is False, body  # resumed once
    kinds = [(k, d.get("cause")) for k, d in _events(services, attempt_id)]
    assert kinds == [("pause", "command"), ("resume", "run")]  # a run is no edit: no activity event
