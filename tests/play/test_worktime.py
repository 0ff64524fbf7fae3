"""Working time: a step's time net of pauses (record/worktime.py) and the activity route."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import PROBE_ID
from sqlalchemy import select

from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.record.worktime import working_seconds
from cibench_lab.store.tables import Event, StepRow

T0 = dt.datetime(2025, 1, 1, 12, 0, 0, tzinfo=dt.timezone.utc)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


@pytest.mark.fast
def test_each_gap_counts_up_to_the_pause():
    # opened 0, edits at 10 and 400, settled at 1000: gaps 10, 390 -> 300, 600 -> 300
    assert working_seconds(at(0), at(1000), [at(10), at(400)], [], 300) == 10 + 300 + 300
    assert working_seconds(at(0), at(1000), [], [], 300) == 300  # one long gap
    assert working_seconds(at(0), at(40), [], [], 300) == 40  # shorter than the pause: wall time
    assert working_seconds(at(0), at(0), [], [], 300) == 0


@pytest.mark.fast
def test_a_turns_running_interval_counts_whole():
    # a 900 s run between 100 and 1000; settled at 1100: 100 + 900 + 100
    assert working_seconds(at(0), at(1100), [], [(at(100), at(1000))], 300) == 1100
    # edits inside the run change nothing; a long gap after the run is capped
    assert working_seconds(at(0), at(2000), [at(500)], [(at(100), at(1000))], 300) == 100 + 900 + 300
    # overlapping runs (a second one reported while the first ran) count their union once
    runs = [(at(100), at(600)), (at(400), at(1000))]
    assert working_seconds(at(0), at(1000), [], runs, 60) == 60 + 900


@pytest.mark.fast
def test_an_open_step_counts_up_to_now_the_same_way():
    now = at(2000)
    assert working_seconds(at(0), now, [at(100), at(200)], [], 300) == 100 + 100 + 300
    # a person active until a moment ago: the clock runs to now
    assert working_seconds(at(0), now, [at(1990)], [(at(1000), at(1100))], 300) == 300 + 100 + 300 + 10


@pytest.mark.fast
def test_points_outside_the_step_are_clipped():
    assert working_seconds(at(100), at(200), [at(0), at(300)], [(at(50), at(150))], 10) == 50 + 10


@pytest.mark.fast
def test_time_between_a_pause_and_its_resume_counts_nothing():
    # edit at 10, paused 20..80, settled at 100: 10 + 10 + 0 + 20
    assert working_seconds(at(0), at(100), [at(10)], [], 300, paused=[(at(20), at(80))]) == 40
    # a pause longer than pause_after still counts 0, and the idle rule applies after the resume
    assert working_seconds(at(0), at(5000), [], [], 300, paused=[(at(10), at(4000))]) == 10 + 300
    # still paused (an open step, the pause up to now): nothing after its start
    assert working_seconds(at(0), at(600), [], [], 300, paused=[(at(30), at(600))]) == 30


@pytest.mark.fast
def test_a_run_counts_whole_even_while_paused_and_pauses_are_clipped_to_the_step():
    # a run 20..50 inside the pause 10..80: only the run counts within the pause
    assert (
        working_seconds(at(0), at(100), [], [(at(20), at(50))], 300, paused=[(at(10), at(80))])
        == 10 + 30 + 20
    )
    # a pause that began before the step opened (Next while paused, now closed at the settle)
    assert working_seconds(at(100), at(200), [], [], 300, paused=[(at(0), at(150))]) == 50
    # overlapping pauses count once
    assert working_seconds(at(0), at(100), [], [], 300, paused=[(at(10), at(50)), (at(40), at(60))]) == 50


def _attempt(services, participant: str) -> str:
    task = services.library.get(PROBE_ID)
    new = NewAttempt(task, "e2e", "human", participant, PlaySettings(pause_after=2), {})
    return services.attempts.create(new)


@pytest.mark.fast
async def test_activity_route_records_an_event_for_the_open_step_only(jp_serverapp, api):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    attempt_id = _attempt(services, services.participant)
    code, body = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0})
    assert code == 200 and body["step"] == 0 and 0 <= body["working_seconds"] < 60, body
    code, err = await api("POST", f"attempts/{attempt_id}/activity", {"step": 1})
    assert code == 409 and "not the open step" in err["error"], err
    code, err = await api("POST", f"attempts/{attempt_id}/activity", {"step": "0"})
    assert code == 400 and "step" in err["error"], err
    with services.store.session() as s:
        kinds = s.execute(select(Event.kind, Event.detail).where(Event.attempt_id == attempt_id)).all()
    assert kinds == [("activity", {"step": 0})]
    code, view = await api("GET", f"attempts/{attempt_id}")
    assert code == 200 and view["settings"]["pause_after"] == 2
    assert view["steps"][0]["working_seconds"] is not None and view["steps"][0]["seconds"] is None


@pytest.mark.fast
async def test_the_view_pauses_the_clock_of_a_step_left_alone(jp_serverapp, api):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    attempt_id = _attempt(services, services.participant)
    with services.store.session() as s:  # the step opened an hour ago; edits 1 s and 2.5 s after
        srow = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id))
        srow.opened_at = srow.opened_at - dt.timedelta(hours=1)
        for after in (1, 2.5):
            edit = srow.opened_at + dt.timedelta(seconds=after)
            s.add(Event(attempt_id=attempt_id, kind="activity", at=edit, detail={"step": 0}))
    code, view = await api("GET", f"attempts/{attempt_id}")  # then away: pause_after=2 counts
    assert code == 200 and view["steps"][0]["working_seconds"] == 1 + 1.5 + 2, view["steps"][0]


@pytest.mark.fast
async def test_activity_of_another_participants_attempt_is_refused(jp_serverapp, api, http_server_client):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    attempt_id = _attempt(services, "someone-else")
    code, err = await api("POST", f"attempts/{attempt_id}/activity", {"step": 0})
    assert code == 403 and "another participant" in err["error"], err
    with services.store.session() as s:
        assert s.scalar(select(Event.id).where(Event.attempt_id == attempt_id)) is None
    mine = _attempt(services, services.participant)
    url = f"{jp_serverapp.base_url.rstrip('/')}/cibench-lab/api/attempts/{mine}/activity"
    resp = await http_server_client.fetch(  # no token: refused like every route
        url,
        method="POST",
        body='{"step": 0}',
        headers={"Cookie": "_xsrf=probe", "X-XSRFToken": "probe"},
        raise_error=False,
    )
    assert resp.code == 403
    with services.store.session() as s:
        assert s.scalar(select(Event.id).where(Event.attempt_id == mine)) is None


@pytest.mark.fast
async def test_pause_after_is_checked_against_the_kernel_cull(api):
    body = {"task_id": PROBE_ID, "mode": "e2e", "settings": {"pause_after": 1800}}
    code, err = await api("POST", "attempts", body)  # kernel_idle_cull is 1800 by default
    assert code == 400 and err["error"].startswith("settings.pause_after: must be less than"), err
    code, err = await api("POST", "attempts", {**body, "settings": {"pause_after": 0}})
    assert code == 400 and "settings.pause_after" in err["error"], err
    code, attempts = await api("GET", "attempts")
    assert code == 200 and attempts == []
    code, settings = await api("GET", "settings")
    assert settings["kernel_idle_cull"] == 1800 and settings["defaults"]["pause_after"] == 300
