"""The grading judge's API key from a key file (``judge_api_key_file``), on the model key's rules: it
reaches the judge's endpoint as the Authorization header and nothing else — not the server's
environment, a kernel's environment, a REST response or a log line. A key file Jupyter's file routes
would serve is refused at start; one other users may read is warned of."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from conftest import PROBE_ID, Browser, server_config
from openai_server import ScriptedServer

KEY = "sk-judgefile-SECRET-9876543210"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
SHOW_ENV = "import os\nprint(sorted(os.environ.items()))\nprint(open('/proc/self/environ', 'rb').read())"


def judge_key(folder: Path, mode: int = 0o600) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "judge.key"
    path.write_text(KEY + "\n")
    path.chmod(mode)
    return path


@pytest.fixture
def scripted():
    server = ScriptedServer([{"reply": "8"}], model="judge-vl", key=KEY, max_tokens=32).start()
    yield server
    server.stop()


@pytest.fixture
def jp_server_config(tmp_path, scripted, task_root):
    judge = {"judge_model": "judge-vl", "judge_base_url": scripted.base_url}
    judge |= {
        "judge_api_key_file": str(judge_key(tmp_path / "keys")),
        "judge_api_key_env": "CIBENCH_LAB_NO_KEY",
    }
    return server_config(tmp_path, [task_root], turn_timeout=60.0, **judge)


async def test_the_judges_key_reaches_its_endpoint_and_nothing_else(jp_serverapp, api, scripted, caplog):
    caplog.set_level(logging.DEBUG)
    grader = jp_serverapp.web_app.settings["cibench_lab"].lab.grader
    verdict = await grader.verdicts.judge.judge([PNG], "Rate this figure.")
    assert verdict.score == 0.8, verdict
    assert [r["authorization_ok"] for r in scripted.requests] == [True]
    answers = [await api("GET", "settings"), await api("GET", "models")]
    answers.append(await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"}))
    assert answers[-1][0] == 201, answers[-1]
    b = Browser(jp_serverapp, api, answers[-1][1])
    try:
        answers.append(await b.turn(0, SHOW_ENV))
    finally:
        b.close()
    answers.append(await api("GET", f"attempts/{b.attempt['id']}/turns"))
    shown = json.dumps(answers)
    assert "PATH" in shown  # the kernel's environment was printed, and answered
    assert KEY not in shown and "judge.key" not in shown
    assert KEY not in caplog.text
    assert all(KEY not in value for value in os.environ.values())


def quiet_app():
    from cibench_lab.app import CIBenchLabApp

    app = CIBenchLabApp()
    app.log = logging.getLogger("cibench-lab-test")
    return app


@pytest.mark.fast
def test_a_judge_key_file_the_server_serves_is_refused_at_start(tmp_path, caplog):
    from cibench_lab.models.config import ModelRegistry

    root = tmp_path / "root"
    app = quiet_app()
    app.judge_model, app.judge_api_key_file = "judge-vl", str(judge_key(root / "keys"))
    with pytest.raises(SystemExit):
        app._check_key_files(ModelRegistry({}), root, allow_hidden=False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(lines) == 1 and "judge_api_key_file" in lines[0] and "server root" in lines[0], lines
    app.judge_api_key_file = str(judge_key(tmp_path / "open", 0o644))
    app._check_key_files(ModelRegistry({}), root, allow_hidden=False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 1 and "chmod 600" in lines[0] and KEY not in lines[0], lines
