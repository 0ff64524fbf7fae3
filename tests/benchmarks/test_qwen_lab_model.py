"""A model attached in the lab on a Qwen task (tests/fixtures/qwen/benchmark), over our scripted
OpenAI-compatible server: an easy item's prior turn runs once, as the player's first turn."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import Browser, server_config
from openai_server import ScriptedServer
from test_lab_models import play_to_the_end
from test_qwen_lab import EASY, _probe

from cibench_lab.cli import main

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
KEY = "sk-qwen-lab"


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setenv("CIBENCH_LAB_QWEN_KEY", KEY)
    server = ScriptedServer([{"reply": "Thought: I know.\nFinal Answer: done"}], model="scripted", key=KEY)
    yield server.start()
    server.stop()


@pytest.fixture
def jp_server_config(tmp_path, scripted):
    root = tmp_path / "qwen-tasks"
    assert main(["tasks", "import", str(BENCH), "--into", str(root)]) == 0
    model = {"base_url": scripted.base_url, "api_key_env": "CIBENCH_LAB_QWEN_KEY", "request_timeout": 5.0}
    return server_config(tmp_path, [root], turn_timeout=60.0, models={"scripted": model})


async def test_a_model_in_the_lab_runs_an_easy_items_prior_turn_once(jp_serverapp, api, scripted):
    code, body = await api(
        "POST", "attempts", {"task_id": EASY, "mode": "e2e", "player": {"model": "scripted"}}
    )
    assert code == 201, body
    b = Browser(jp_serverapp, api, body)
    try:
        assert (await _probe(b)).endswith(" False\n")  # set up without the prior turn: no df yet
        attempt = await play_to_the_end(b, api)
        code, listed = await api("GET", f"attempts/{attempt['id']}/turns")  # a Qwen turn's text observation
        assert code == 200, listed
        turns = [(t["code"], t.get("action")) for t in listed]
        assert isinstance(listed[0]["observation"], str) and "weather" in turns[0][0]
        nb = nbformat.read(str(Path(jp_serverapp.root_dir) / body["notebook_path"]), as_version=4)
    finally:
        b.close()
    assert [a for _, a in turns] == ["code", "no_action"]  # the prior turn, recorded once
    assert "weather/weather.csv" in turns[0][0] and attempt["steps"][0]["outcome"] == "answered"
    assert "prior" not in [c.metadata.get("cibench_lab", {}).get("role") for c in nb.cells]
    scripted.check()
