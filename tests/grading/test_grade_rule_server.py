"""The grade rule and the shown profile through the server (an in-process Jupyter server,
real kernels where a turn runs): settings round trip, a player refused best, a person's
match then worse run kept by the rule."""

from __future__ import annotations

import json

import pytest
from conftest import PROBE_ID

from cibench_lab.grading import cjk, text


@pytest.fixture
def jp_server_config(jp_server_config):
    """The server as a lab runs it: no profile configured (conftest pins cibench's wording)."""
    config = json.loads(json.dumps(jp_server_config))
    config["CIBenchLabApp"].pop("profile")
    return config


@pytest.mark.fast
async def test_settings_name_the_grade_rule_and_every_profile(api):
    code, settings = await api("GET", "settings")
    assert code == 200
    assert settings["profile"] == "fair"  # what people are shown unless the server says otherwise
    assert settings["profiles"] == ["cibench", "fair"]
    assert settings["defaults"]["grade_rule"] == "best"


@pytest.mark.fast
async def test_a_player_cannot_keep_its_best_run(api, monkeypatch):
    monkeypatch.setenv("CIBENCH_PROBE_KEY", "sk-probe")
    body = {"task_id": PROBE_ID, "mode": "e2e", "player": {"model": "probe-model"}}
    code, err = await api("POST", "attempts", {**body, "settings": {"grade_rule": "best"}})
    assert code == 400 and err["error"] == "settings.grade_rule: a player's steps are graded when they settle"
    code, err = await api("POST", "attempts", {**body, "settings": {"grade_rule": "first"}})
    assert code == 400 and "settings.grade_rule" in err["error"]
    assert await api("GET", "attempts") == (200, [])  # nothing was started


async def test_the_kept_grade_follows_the_rule_through_the_server(start_attempt, api):
    best = await start_attempt()  # the server's default
    settling = await start_attempt(grade_rule="settling")
    assert best.attempt["settings"]["grade_rule"] == "best"
    assert settling.attempt["settings"]["grade_rule"] == "settling"
    for b in (best, settling):
        await b.turn(0, "probe = 'p' * 17")
        await b.next(0)
        code, r = await b.turn(1, "print('LEAKPROBE_OUT_X2 alpha beta')")
        assert code == 200 and r["grade"]["passed"], r
        code, r = await b.turn(1, "print('alpha')")
        assert not r["grade"]["passed"]
    step = (await api("GET", f"attempts/{best.attempt['id']}"))[1]["steps"][1]
    assert step["kept_turn"] == 0 and step["grade"]["passed"] and "ROUGE-1 >= 0.999" in step["criterion"]
    step = (await api("GET", f"attempts/{settling.attempt['id']}"))[1]["steps"][1]
    assert step["kept_turn"] == 1 and not step["grade"]["passed"]
    _, r = await best.next(1)
    assert r["settled"]["grade"]["passed"] and r["attempt"]["steps"][1]["kept_turn"] == 0
    _, r = await settling.next(1)
    assert not r["settled"]["grade"]["passed"] and r["attempt"]["steps"][1]["kept_turn"] == 1
    code, rows = await api("GET", "attempts")
    assert code == 200 and {r["id"] for r in rows} == {best.attempt["id"], settling.attempt["id"]}
    for row in rows:
        assert (row["passed"], row["language"], row["split"]) == (None, "en", "cibench_template")


@pytest.fixture
def cold_scorers():
    """The ROUGE scorers not built yet in this process (as in a fresh server)."""
    cjk._scorer.cache_clear()
    text._scorer.cache_clear()


@pytest.mark.fast
async def test_the_server_loads_the_text_graders_when_it_starts(cold_scorers, jp_serverapp):
    grader = jp_serverapp.web_app.settings["cibench_lab"].lab.grader
    assert grader.warmed is not None  # started with the server, on the grader's own thread
    grader.warmed.result(timeout=120)
    assert text._scorer.cache_info().currsize == 1 and cjk._scorer.cache_info().currsize == 1
