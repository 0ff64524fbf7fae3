"""A model attached to a lab attempt, driven over the REST API as the lab's panel drives it.

The scripted OpenAI-compatible server asserts every request against the golden
transcripts recorded from OpenCompass's own agent, so a passing lab play means the
lab sends the same messages as the headless runner and the original — with the
turns run on the notebook's kernel and graded from the server's IOPub capture.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from conftest import Browser
from openai_server import ScriptedServer, exchanges_from_golden
from test_run_models import KEY, TASK, expected_actions, golden

from cibench_lab.cli import main
from cibench_lab.tasks.library import builtin_dir

REACT_TASKS = Path(__file__).parent.parent / "fixtures" / "react" / "tasks"


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setenv("CIBENCH_LAB_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # a keyless model must stay keyless
    monkeypatch.delenv("CIBENCH_LAB_UNSET_KEY", raising=False)
    server = ScriptedServer([], model="scripted", key=KEY).start()
    yield server
    server.stop()


def script(server: ScriptedServer, exchanges: list[dict]) -> None:
    server.exchanges[:] = [dict(e, served=0, done=False) for e in exchanges]


@pytest.fixture
def jp_server_config(tmp_path, scripted, task_root):
    model = {
        "base_url": scripted.base_url,
        "api_key_env": "CIBENCH_LAB_TEST_KEY",
        "backoff": 0.01,
        "request_timeout": 1.5,
    }
    from_file = tmp_path / "models.toml"
    from_file.write_text(
        '[models.from-file]\nprotocol = "tools"\napi_key_env = "CIBENCH_LAB_UNSET_KEY"\n'
        '[models.scripted]\nprotocol = "tools"\n'
    )
    return {
        "ServerApp": {"jpserver_extensions": {"cibench_lab": True}, "allow_unauthenticated_access": False},
        "CIBenchLabApp": {
            "database_url": f"sqlite:///{tmp_path / 'results.sqlite'}",
            "task_dirs": [str(builtin_dir()), str(task_root), str(REACT_TASKS)],
            "turn_timeout": 60.0,
            "models": {"scripted": model, "tooly": {**model, "model": "scripted", "protocol": "tools"}},
            "model_config_file": str(from_file),
        },
    }


async def start(jp_serverapp, api, player, mode="e2e", task=TASK) -> Browser:
    code, body = await api("POST", "attempts", {"task_id": task, "mode": mode, "player": player})
    assert code == 201, body
    return Browser(jp_serverapp, api, body)


async def play_to_the_end(b: Browser, api, between_turns=None) -> dict:
    """What the panel's Play all does: propose, run the code in the cell, report, repeat."""
    attempt = b.attempt
    while attempt["status"] == "open":
        if between_turns:
            between_turns()
        step = attempt["current_step"]
        code, p = await api("POST", f"attempts/{attempt['id']}/propose", {"step": step})
        assert code == 200, p
        if p["action"] == "code":
            code, r = await b.turn(step, p["code"])
            assert code == 200, r
            settled, attempt = r["settled"], r["attempt"]
        else:
            assert p["code"] is None and (p["recorded"] or p["action"] == "give_up")
            settled, attempt = p["settled"], p["attempt"]
        if settled and settled["oracle_code"] and settled["next_step"] is not None:
            msg_id = await b.execute(settled["oracle_code"])
            body = {"step": step, "kernel_id": b.kernel_id, "msg_id": msg_id}
            code, r = await api("POST", f"attempts/{attempt['id']}/oracle", body)
            assert code == 200 and r["recorded"], r
    return attempt


def actions(turns: list[dict], attempt: dict) -> list[list[tuple[str, bool]]]:
    return [[(t["action"], t["error"]) for t in turns if t["step"] == i] for i in range(attempt["n_steps"])]


@pytest.mark.parametrize("name", ["e2e", "oracle"])
async def test_lab_model_play_sends_opencompass_messages(jp_serverapp, api, scripted, name, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    g = golden(name)
    exchanges = exchanges_from_golden(g)
    exchanges[0]["faults"] = ["429"]
    script(scripted, exchanges)
    b = await start(jp_serverapp, api, {"model": "scripted"}, g["mode"])
    try:
        attempt = await play_to_the_end(b, api)
    finally:
        b.close()
    scripted.check()
    assert attempt["player"] == "openai:scripted" and attempt["status"] == "done"
    code, turns = await api("GET", f"attempts/{attempt['id']}/turns")
    assert code == 200
    assert actions(turns, attempt) == expected_actions(g["steps"])
    assert [t["prompt"] for t in turns] == [r["messages"] for r in g["requests"]]
    assert all(t["tokens"]["total"] and t["latency_s"] > 0 and "response" in t for t in turns)
    assert turns[0]["retries"] == 1
    db = (tmp_path / "results.sqlite").read_bytes().decode("utf-8", "replace")
    for text in (json.dumps(turns), caplog.text, db):
        assert KEY not in text


@pytest.mark.parametrize("mode", ["e2e", "oracle"])
async def test_lab_plays_the_tools_protocol_as_its_golden(jp_serverapp, api, scripted, mode):
    g = golden(f"tools_{mode}")
    script(scripted, exchanges_from_golden(g))
    b = await start(jp_serverapp, api, {"model": "tooly"}, mode)
    try:
        attempt = await play_to_the_end(b, api)
    finally:
        b.close()
    scripted.check()
    _, turns = await api("GET", f"attempts/{attempt['id']}/turns")
    assert [t["action"] for t in turns] == [
        "code", "no_action", "code", "code", "invalid", "invalid", "code", "code", "code", "code",
    ]  # fmt: skip
    metrics = ("tool", "exec", "num", "text", "vis")
    assert [attempt["summary"][m] for m in metrics] == [100.0] * 5  # as the headless run of the same replies


async def test_a_restarted_server_rebuilds_the_conversation_from_the_database(jp_serverapp, api, scripted):
    """The model's in-memory session is dropped before every turn (as a server restart
    would): rebuilt from the recorded turns, references and settles, the messages are
    still OpenCompass's, byte for byte (oracle: the hardest history)."""
    g = golden("oracle")
    script(scripted, exchanges_from_golden(g))
    driver = jp_serverapp.web_app.settings["cibench_lab"].lab.driver
    b = await start(jp_serverapp, api, {"model": "scripted"}, "oracle")
    try:
        attempt = await play_to_the_end(b, api, between_turns=driver.sessions.clear)
    finally:
        b.close()
    scripted.check()
    assert attempt["status"] == "done"


async def test_stop_cancels_a_hanging_request_and_play_goes_on(jp_serverapp, api, scripted):
    exchanges = exchanges_from_golden(golden("tools_e2e"))
    exchanges[0]["faults"] = ["hang:30"]
    script(scripted, exchanges[:1])
    b = await start(jp_serverapp, api, {"model": "tooly"})
    aid = b.attempt["id"]
    try:
        propose = asyncio.ensure_future(api("POST", f"attempts/{aid}/propose", {"step": 0}))
        for _ in range(100):
            if scripted.hanging.is_set():
                break
            await asyncio.sleep(0.05)
        assert scripted.hanging.is_set()
        code, body = await api("POST", f"attempts/{aid}/propose", {"step": 0})
        assert code == 409 and "already working" in body["error"]
        code, body = await api("POST", f"attempts/{aid}/stop", {})
        assert (code, body) == (200, {"stopped": True})
        code, body = await propose
        assert code == 409 and "stopped" in body["error"]
        code, p = await api("POST", f"attempts/{aid}/propose", {"step": 0})
        assert code == 200 and p["action"] == "code" and p["turn"] == 0
        assert p["tokens"] > 0 and p["latency_s"] >= 0
        code, again = await api("POST", f"attempts/{aid}/propose", {"step": 0})
        assert again["code"] == p["code"], "asking again hands out the same pending turn"
        code, r = await b.turn(0, p["code"])
        assert code == 200 and r["settled"]["outcome"] == "passed", r
    finally:
        b.close()


async def test_task_kernels_never_see_the_servers_keys(jp_serverapp, api, monkeypatch):
    monkeypatch.setenv("SOME_SERVICE_API_KEY", "another-secret-value")
    b = await start(jp_serverapp, api, None)
    code = (
        "import os\n"
        "env = open('/proc/self/environ', 'rb').read()\n"
        "assert b'SECRET-never' not in env and b'another-secret' not in env\n"
        "assert 'CIBENCH_LAB_TEST_KEY' not in os.environ and 'SOME_SERVICE_API_KEY' not in os.environ\n"
        "assert os.environ['OMP_NUM_THREADS'] == '1'\n"
    )
    try:
        status, r = await b.turn(0, code)
    finally:
        b.close()
    assert status == 200 and r["grade"]["exec"] == 1, r


@pytest.mark.fast
async def test_models_come_from_the_config_and_its_file(api):
    code, models = await api("GET", "models")
    assert code == 200
    assert sorted(map(tuple, (m.values() for m in models))) == [
        ("from-file", "tools"),
        ("scripted", "cibench-react"),  # `models` wins over the file
        ("tooly", "tools"),
    ]


async def test_attached_and_human_play_do_not_mix(jp_serverapp, api, scripted):
    code, body = await api("POST", "attempts", {"task_id": TASK, "mode": "e2e", "player": {"model": "nope"}})
    assert code == 400 and "unknown model 'nope'" in body["error"] and "scripted" in body["error"]
    keyless = {"task_id": TASK, "mode": "e2e", "player": {"model": "from-file"}}
    code, body = await api("POST", "attempts", keyless)  # no key, no base URL: said at Start
    assert code == 400 and "no API key: set CIBENCH_LAB_UNSET_KEY" in body["error"], body
    code, body = await api("POST", "attempts", {"task_id": TASK, "mode": "e2e", "player": "gpt"})
    assert code == 400 and "player" in body["error"]
    human = await start(jp_serverapp, api, None)
    model = await start(jp_serverapp, api, {"model": "scripted"})
    root = Path(jp_serverapp.root_dir)
    for b, says in ((human, "use the CIBench panel for Next step"), (model, "played by openai:scripted")):
        title = json.loads((root / b.attempt["notebook_path"]).read_text())["cells"][0]["source"]
        assert says in "".join(title)
    try:
        code, body = await api("POST", f"attempts/{human.attempt['id']}/propose", {"step": 0})
        assert code == 409 and "played by a person" in body["error"]
        code, body = await model.turn(0, "x = 1")
        assert code == 409 and "Play step" in body["error"]
        code, body = await api("POST", f"attempts/{model.attempt['id']}/propose", {"step": 1})
        assert code == 409 and "not the open step" in body["error"]
    finally:
        human.close()
        model.close()


async def test_a_failing_endpoint_is_a_502_that_names_no_key(jp_serverapp, api, scripted):
    script(scripted, [{"reply": "never", "faults": ["500"] * 10}])
    b = await start(jp_serverapp, api, {"model": "scripted"})
    try:
        code, body = await api("POST", f"attempts/{b.attempt['id']}/propose", {"step": 0})
    finally:
        b.close()
    assert code == 502 and "model endpoint failed" in body["error"]
    assert KEY not in json.dumps(body) and scripted.base_url not in body["error"]


async def test_replay_a_recorded_run_in_the_lab(jp_serverapp, jp_fetch, api, scripted, tmp_path, monkeypatch):
    g = golden("e2e")
    script(scripted, exchanges_from_golden(g))
    db = f"sqlite:///{tmp_path / 'results.sqlite'}"
    cfg = tmp_path / "models.json"
    cfg.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01}}}))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    common = ["--task-dir", str(REACT_TASKS), "--db", db, "run", "--tasks", TASK, "--no-progress"]
    model_run = ["--player", "openai:scripted", "--model-config", str(cfg), "--base-url", scripted.base_url]
    root = Path(jp_serverapp.root_dir)
    (root / "runs").mkdir()
    export = ["--export-transcript", str(root / "runs" / "recorded.jsonl")]
    assert await asyncio.to_thread(main, [*common, *model_run, "--run", "recorded", *export]) == 0
    assert await asyncio.to_thread(main, [*common, "--player", "reference", "--run", "answers"]) == 0
    resp = await jp_fetch("cibench-lab", "api", "recordings", params={"task": TASK})
    recs = json.loads(resp.body)
    assert [(r["run"], r["player"]) for r in recs] == [("recorded", "openai:scripted")]
    b = await start(jp_serverapp, api, {"replay": recs[0]["id"]})
    try:
        attempt = await play_to_the_end(b, api)
    finally:
        b.close()
    assert attempt["player"] == f"replay:attempt:{recs[0]['id']}"
    _, replayed = await api("GET", f"attempts/{attempt['id']}/turns")
    by_step = [
        [(t["action"], t["error"]) for t in replayed if t["step"] == i] for i in range(attempt["n_steps"])
    ]
    assert by_step == expected_actions(g["steps"])
    code, body = await api(
        "POST", "attempts", {"task_id": TASK, "mode": "e2e", "player": {"replay": "0" * 32}}
    )
    assert code == 400 and "no recorded model run" in body["error"]


async def test_an_endpoint_echoing_the_key_answers_a_502_without_it(jp_serverapp, api, scripted, caplog):
    caplog.set_level(logging.DEBUG)
    script(scripted, [{"reply": "x", "faults": ["401-echo"]}])
    b = await start(jp_serverapp, api, {"model": "scripted"})
    try:
        code, body = await api("POST", f"attempts/{b.attempt['id']}/propose", {"step": 0})
    finally:
        b.close()
    assert code == 502 and "HTTP 401" in body["error"], body
    assert "Incorrect API key provided: ***" in body["error"]
    assert KEY not in json.dumps(body) and KEY not in caplog.text
