"""Lab kernels are sandboxed too: the server still captures them and the browser still talks to them."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_runtime_dir
from sqlalchemy import select

from cibench_lab.kernels.sandbox import ATTEMPT_DIR, ENABLED_VAR, NETWORK_VAR
from cibench_lab.kernels.spec import KERNEL_NAME
from cibench_lab.store.tables import Turn

CANARY = "CIBENCH_LAB_CANARY_TOKENLESS"


@pytest.fixture(autouse=True)
def _canary(monkeypatch):
    monkeypatch.setenv(CANARY, "lab-canary-91d2")
    for var in (ENABLED_VAR, NETWORK_VAR):  # the server sets them; restored after the test
        monkeypatch.setenv(var, "")


PROBE = """
import json, os, socket
def connects(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=3).close()
        return True
    except OSError:
        return False
def readable(p):
    try:
        os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1)
        return True
    except OSError:
        return False
print(json.dumps({'cwd': os.getcwd(), 'files': sorted(os.listdir('.')),
                  'readable': {p: readable(p) for p in PATHS},
                  'environ': open('/proc/1/environ').read() + json.dumps(dict(os.environ)),
                  'server_port': connects(PORT)}))
"""


async def test_a_lab_kernel_is_sandboxed_and_graded_from_its_capture(start_attempt, jp_serverapp, tmp_path):
    b = await start_attempt()
    km = jp_serverapp.kernel_manager.get_kernel(b.kernel_id)
    assert km.transport == "ipc"
    assert Path(km.connection_file).parent != Path(jupyter_runtime_dir())
    paths = [str(tmp_path / "results.sqlite"), jupyter_runtime_dir(), str(jp_serverapp.root_dir)]
    code, r = await b.turn(0, f"PATHS = {paths!r}\nPORT = {jp_serverapp.port}\n{PROBE}")
    assert code == 200, r
    store = jp_serverapp.web_app.settings["cibench_lab"].store
    with store.session() as s:
        row = s.scalars(select(Turn).where(Turn.attempt_id == b.attempt["id"])).one()
        facts = json.loads("".join(o.get("text", "") for o in row.outputs))
    assert facts["cwd"] == ATTEMPT_DIR
    assert b.attempt["notebook_path"].rsplit("/", 1)[-1] in facts["files"]
    assert not any(facts["readable"].values()), facts["readable"]
    assert CANARY not in facts["environ"]
    assert not facts["server_port"], "the kernel reached the Jupyter server's port"


async def test_a_kernel_outside_the_attempts_folder_sees_no_files(jp_fetch, jp_serverapp, jp_root_dir):
    (Path(jp_root_dir) / "loose.txt").write_text("in the server root")
    body = {"path": "loose.ipynb", "type": "notebook", "name": "loose.ipynb", "kernel": {"name": KERNEL_NAME}}
    resp = await jp_fetch("api", "sessions", method="POST", body=json.dumps(body))
    kc = jp_serverapp.kernel_manager.get_kernel(json.loads(resp.body)["kernel"]["id"]).client()
    kc.start_channels()
    printed: list[str] = []

    def collect(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])

    try:
        await kc.wait_for_ready(timeout=60)
        code = "import os; print(os.getcwd(), os.listdir('.'))"
        reply = await kc.execute_interactive(code, output_hook=collect, timeout=60)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
    assert printed == [f"{ATTEMPT_DIR} []\n"]


async def test_the_browser_runs_code_over_the_websocket(start_attempt, jp_ws_fetch):
    b = await start_attempt()
    ws = await jp_ws_fetch("api", "kernels", b.kernel_id, "channels")
    msg_id = uuid.uuid4().hex
    request = {
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": "s",
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": "print(6 * 7)", "silent": False, "store_history": False,
                    "user_expressions": {}, "allow_stdin": False},
    }  # fmt: skip
    ws.write_message(json.dumps(request))
    printed = None
    for _ in range(200):
        msg = json.loads(await asyncio.wait_for(ws.read_message(), 30))
        if msg.get("parent_header", {}).get("msg_id") == msg_id and msg["msg_type"] == "stream":
            printed = msg["content"]["text"]
            break
    ws.close()
    assert printed == "42\n"


@pytest.mark.fast
async def test_without_the_preset_terminals_and_other_kernelspecs_are_there(jp_fetch, jp_serverapp):
    """The proctored test's control: what the preset turns off is on by default."""
    assert jp_serverapp.terminals_enabled
    specs = json.loads((await jp_fetch("api", "kernelspecs")).body)
    assert {"python3", "cibench-lab"} <= set(specs["kernelspecs"])
