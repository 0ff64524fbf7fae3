"""A headless run's attempts, read through the REST API by the server's researcher (a real Jupyter
server whose roles come from its settings, a real SQLite store): ``GET runs/attempts`` lists what
``GET runs/attempts/{id}`` and ``…/turns`` open, the attempt its player would see; no one else's
attempt is one of them, and without the role every route refuses."""

from __future__ import annotations

import pytest
from conftest import PROBE_ID

from cibench_lab.auth.roles import RoleSettings
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.runs.local import ensure_run

pytestmark = pytest.mark.fast
PLAYER = "openai:m"


@pytest.fixture
def jp_server_config(jp_server_config):
    options = {"participant": "rita", "researchers": ["rita"]}
    return {**jp_server_config, "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **options}}


@pytest.fixture
def recorded(jp_serverapp) -> tuple[object, str, str]:
    """A run's attempt (its player's first turn settled the step) and ada's own attempt."""
    services = jp_serverapp.web_app.settings["cibench_lab"]
    attempts = services.attempts
    task = attempts.library.get(PROBE_ID)
    run_id = ensure_run(attempts, "night", PLAYER, "e2e")
    new = NewAttempt(task, "e2e", PLAYER, f"player:{PLAYER}", PlaySettings(), {}, run_id=run_id)
    run_attempt = attempts.create(new)
    attempts.record_turn(run_attempt, 0, TurnOutput("probe = 'x'"))
    own = attempts.create(NewAttempt(task, "e2e", "human", "ada", PlaySettings(), {}))
    return services, run_attempt, own


async def test_a_researcher_opens_every_run_attempt_listed(recorded, api):
    _, run_attempt, _ = recorded
    code, rows = await api("GET", "runs/attempts")
    assert code == 200, rows
    assert [(r["id"], r["participant"], r["run"]) for r in rows] == [
        (run_attempt, f"player:{PLAYER}", "night")
    ]
    code, view = await api("GET", f"runs/attempts/{run_attempt}")
    assert code == 200, view
    assert (view["id"], view["player"], view["current_step"]) == (run_attempt, PLAYER, 1)
    assert view["steps"][0]["settled"] and view["steps"][0]["turns"] == 1
    code, turns = await api("GET", f"runs/attempts/{run_attempt}/turns")
    assert code == 200 and [(t["step"], t["code"]) for t in turns] == [(0, "probe = 'x'")]
    code, _ = await api("GET", f"attempts/{run_attempt}")  # no one's own: the player's routes refuse
    assert code == 403


async def test_no_other_attempt_is_a_runs_and_only_a_researcher_reads_them(recorded, api):
    services, run_attempt, own = recorded
    for path in (f"runs/attempts/{own}", f"runs/attempts/{own}/turns"):
        code, err = await api("GET", path)
        assert (code, err["error"]) == (404, f"unknown attempt {own!r} of a headless run"), path
    services.roles.settings = RoleSettings.of(["rita"], [], {"demo": ["rita", "ada"]})  # an instructor
    for path in ("runs/attempts", f"runs/attempts/{run_attempt}", f"runs/attempts/{run_attempt}/turns"):
        code, err = await api("GET", path)
        assert code == 403 and err["error"].endswith("needs the researcher role"), path
