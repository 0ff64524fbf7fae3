"""A model's API key from a key file: it reaches the model's endpoint as the Authorization header, and
nothing else — not the server's environment, a kernel's environment, a REST response or a log line. A
key file Jupyter's file routes would serve is refused at start; one other users may read is warned of."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest
from conftest import Browser, server_config
from openai_server import ScriptedServer

from cibench_lab.models.config import ModelRegistry
from cibench_lab.tasks.library import builtin_dir

KEY = "sk-keyfile-SECRET-0123456789"
TASK = "cibench_template/pandas/react_probe"
REACT_TASKS = Path(__file__).parent.parent / "fixtures" / "react" / "tasks"
SHOW_ENV = (
    "Thought: I look around.\nAction: IPythonInterpreter\nAction Input: ```python\n"
    "import os\nprint(sorted(os.environ))\nprint(open('/proc/self/environ', 'rb').read())\n```\n"
)


def key_file(folder: Path, mode: int = 0o600) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.key"
    path.write_text(KEY + "\n")
    path.chmod(mode)
    return path


@pytest.fixture
def scripted():
    server = ScriptedServer([{"reply": SHOW_ENV}], model="keyed", key=KEY).start()
    yield server
    server.stop()


@pytest.fixture
def jp_server_config(tmp_path, scripted, task_root):
    model = {"base_url": scripted.base_url, "api_key_file": str(key_file(tmp_path / "keys"))}
    model["api_key_env"] = "CIBENCH_LAB_NO_SUCH_KEY"
    dirs = [builtin_dir(), task_root, REACT_TASKS]
    return server_config(tmp_path, dirs, turn_timeout=60.0, models={"keyed": {**model, "backoff": 0.01}})


async def test_the_key_reaches_the_endpoint_and_nothing_else(jp_serverapp, api, scripted, caplog):
    caplog.set_level(logging.DEBUG)
    answers = [await api("GET", "models"), await api("GET", "settings")]
    answers.append(
        await api("POST", "attempts", {"task_id": TASK, "mode": "e2e", "player": {"model": "keyed"}})
    )
    assert answers[-1][0] == 201, answers[-1]
    b = Browser(jp_serverapp, api, answers[-1][1])
    aid = b.attempt["id"]
    try:
        answers.append(await api("POST", f"attempts/{aid}/propose", {"step": 0}))
        assert answers[-1][1]["action"] == "code", answers[-1]
        answers.append(await b.turn(0, answers[-1][1]["code"]))
    finally:
        b.close()
    answers += [await api("GET", f"attempts/{aid}/turns"), await api("GET", f"attempts/{aid}")]
    assert [r["authorization_ok"] for r in scripted.requests] == [True]
    shown = json.dumps(answers)
    assert "OMP_NUM_THREADS" in shown  # the kernel's environment was printed, and answered
    assert KEY not in shown and "model.key" not in shown
    assert KEY not in caplog.text
    assert all(KEY not in value for value in os.environ.values())


def quiet_app():
    from cibench_lab.app import CIBenchLabApp

    app = CIBenchLabApp()
    app.log = logging.getLogger("cibench-lab-test")
    return app


@pytest.mark.fast
def test_a_key_file_the_server_serves_is_refused_at_start(tmp_path, caplog):
    root = tmp_path / "root"
    models = ModelRegistry({"m": {"api_key_file": str(key_file(root / "keys"))}})
    with pytest.raises(SystemExit):
        quiet_app()._check_key_files(models, root, allow_hidden=False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.CRITICAL]
    assert len(lines) == 1 and "api_key_file" in lines[0] and "server root" in lines[0], lines
    hidden = ModelRegistry({"m": {"api_key_file": str(key_file(root / ".keys"))}})
    quiet_app()._check_key_files(hidden, root, allow_hidden=False)  # a hidden folder Jupyter does not serve


@pytest.mark.fast
def test_a_key_file_others_may_read_is_warned_of_in_one_line(tmp_path, caplog):
    models = ModelRegistry({"m": {"api_key_file": str(key_file(tmp_path / "keys", 0o644))}})
    quiet_app()._check_key_files(models, tmp_path / "root", allow_hidden=False)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 1 and "chmod 600" in lines[0] and KEY not in lines[0], lines
    assert models.get("m").key() == KEY and "api_key_file" not in models.get("m").public()
