"""The OpenAI-compatible client against the scripted server: retries, timeouts, usage, keys."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from openai_server import ScriptedServer

from cibench_lab.models import ConfigError, ModelConfig, ModelError, ModelRegistry
from cibench_lab.models.client import ChatClient
from cibench_lab.players.model import make_model_player

pytestmark = pytest.mark.fast

MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
KEY = "sk-test-NEVER-LOGGED-1234"


def config(server: ScriptedServer, **kw) -> ModelConfig:
    values = dict(base_url=server.base_url, api_key=KEY, backoff=0.01, request_timeout=2.0, retries=4)
    return ModelConfig(name="scripted", **{**values, **kw})


def complete(cfg: ModelConfig, messages=MESSAGES, tools=None):
    async def go():
        client = ChatClient(cfg)
        try:
            return await client.complete(messages, tools)
        finally:
            await client.aclose()

    return asyncio.run(go())


def test_retries_429_500_malformed_drop_and_hang(caplog):
    faults = ["429", "500", "malformed", "drop", "hang:4"]
    with ScriptedServer([{"messages": MESSAGES, "reply": "ok", "faults": faults}], key=KEY) as server:
        with caplog.at_level(logging.DEBUG):
            done = complete(config(server, request_timeout=1.0, retries=5))
    server.check()
    assert done.content == "ok" and done.retries == 5
    assert done.usage["prompt"] and done.usage["completion"] and done.usage["total"]
    assert 0 < done.latency_s <= done.wall_s and done.wall_s >= 1.0  # the hang cost a timeout
    assert len(server.requests) == 6 and all(r["authorization_ok"] for r in server.requests)
    assert KEY not in caplog.text


def test_gives_up_after_the_retries():
    with ScriptedServer([{"messages": MESSAGES, "reply": "ok", "faults": ["500"] * 3}], key=KEY) as server:
        with pytest.raises(ModelError, match="gave up after 3 attempts: HTTP 500"):
            complete(config(server, retries=2))


def test_a_rejected_request_is_not_retried():
    with ScriptedServer(
        [{"messages": [{"role": "user", "content": "other"}], "reply": "x"}], key=KEY
    ) as server:
        with pytest.raises(ModelError, match="HTTP 400"):
            complete(config(server))
    assert len(server.requests) == 1 and server.mismatches


def test_tool_calls_and_parameters_reach_the_server():
    call = {"id": "c1", "type": "function", "function": {"name": "python", "arguments": '{"code": "1"}'}}
    tools = [{"type": "function", "function": {"name": "python", "parameters": {"type": "object"}}}]
    exchange = {"messages": MESSAGES, "tools": ["python"], "reply": {"content": None, "tool_calls": [call]}}
    with ScriptedServer([exchange], key=KEY, model="m-1", max_tokens=77, temperature=0.5) as server:
        done = complete(config(server, model="m-1", max_tokens=77, temperature=0.5), tools=tools)
    server.check()
    assert done.tool_calls == [call] and done.content == "" and done.finish_reason == "tool_calls"


def test_keys_stay_out_of_configs_and_records(monkeypatch):
    monkeypatch.setenv("MY_KEY", KEY)
    cfg = ModelConfig(name="m", base_url="http://127.0.0.1:9/v1", api_key_env="MY_KEY")
    assert cfg.key() == KEY
    assert KEY not in repr(cfg) and KEY not in json.dumps(cfg.public())
    player = make_model_player("m", base_url="http://127.0.0.1:9/v1", api_key_env="MY_KEY", protocol="tools")
    assert KEY not in json.dumps(player.describe())
    asyncio.run(player.aclose())
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ModelConfig(name="m").key()
    assert ModelConfig(name="m", base_url="http://localhost:8000/v1").key() == "EMPTY"


def test_config_file_and_registry(tmp_path):
    path = tmp_path / "models.json"
    path.write_text(
        json.dumps({"models": {"local": {"model": "qwen", "base_url": "http://h/v1", "retries": 1}}})
    )
    player = make_model_player("local", config_file=str(path), temperature=0.3, retries=None)
    assert player.name == "openai:local"
    assert (player.config.model, player.config.retries, player.config.temperature) == ("qwen", 1, 0.3)
    asyncio.run(player.aclose())
    assert ModelRegistry({"a": {"protocol": "tools"}}).public() == [{"name": "a", "protocol": "tools"}]
    with pytest.raises(ConfigError, match="unknown setting"):
        ModelRegistry({"a": {"bogus": 1}})
    with pytest.raises(ConfigError, match="cibench-react protocol only"):
        ModelConfig(name="a", protocol="tools", merge_roles=True)


def test_a_401_that_echoes_the_key_is_redacted_from_the_error_and_the_log(caplog):
    with ScriptedServer([{"messages": MESSAGES, "reply": "ok", "faults": ["401-echo"]}], key=KEY) as server:
        with caplog.at_level(logging.DEBUG), pytest.raises(ModelError) as err:
            complete(config(server))
    message = str(err.value)
    assert message.startswith("scripted: HTTP 401: ") and "Incorrect API key provided: ***" in message
    assert "Bearer ***" in message and KEY not in message and KEY not in caplog.text
    assert len(server.requests) == 1  # a 401 is not retried


def test_redact_masks_known_keys_secret_variables_and_token_shapes(monkeypatch):
    from cibench_lab.models.redact import RedactingFilter, redact, remember

    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("PLAIN_NAME", "hidden-by-name-42")
    monkeypatch.setenv("CIBENCH_LAB_HIDE_ENV", "PLAIN_NAME")
    remember("configured-key-value-9")
    text = (
        "a tok-0123456789 b hidden-by-name-42 c configured-key-value-9 "
        "d Authorization: Bearer abc.def-ghi e sk-proj-ABCDEFGH12 f EMPTY"
    )
    assert redact(text) == "a *** b *** c *** d Authorization: Bearer *** e *** f EMPTY"
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed: %s", ("sk-live-abcdefgh99",), None)
    RedactingFilter().filter(record)
    assert record.getMessage() == "failed: ***"


def test_the_judge_records_a_redacted_failure(monkeypatch):
    from cibench_lab.models.judge import VisionJudge

    monkeypatch.setenv("CIBENCH_JUDGE_T_KEY", KEY)
    with ScriptedServer([{"reply": "7", "faults": ["401-echo"]}], key=KEY, max_tokens=None) as server:
        judge = VisionJudge(model="scripted", base_url=server.base_url, api_key_env="CIBENCH_JUDGE_T_KEY")
        verdict = asyncio.run(judge.judge(["iVBORw0KGgo="], "rate it"))
    assert verdict.score is None and verdict.error and "HTTP 401" in verdict.error
    assert KEY not in verdict.error
