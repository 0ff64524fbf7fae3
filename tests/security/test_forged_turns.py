"""A turn is a request the server saw go to the kernel (issue 26, item 4).

Code in a cell holds the kernel's IOPub socket: it can publish any message under any parent. The
server therefore takes a turn's code from the ``execute_request`` it forwarded (the lab's kernel
websocket passes through it), not from the kernel's ``execute_input``, and refuses a turn whose
msg_id it never saw sent. Real server, real sandboxed kernel, the websocket spoken as JupyterLab does.
"""

from __future__ import annotations

import uuid

import pytest
from kernel_socket import LEGACY, V1, KernelSocket

#: Publishes, from inside the kernel, IOPub messages under the parent ``{parent}`` (None: the
#: running cell's own request) — the kernel's own session and socket, as any cell can reach them.
FORGE = """\
def _forge(parent_id, kinds):
    k = get_ipython().kernel
    parent = dict(k.get_parent("shell")) if parent_id is None else {{
        "header": {{"msg_id": parent_id, "msg_type": "execute_request", "session": "s",
                   "username": "", "version": "5.3", "date": ""}}}}
    for kind, content in kinds:
        k.session.send(k.iopub_socket, kind, content, parent=parent, ident=k._topic(kind))
_forge({parent}, [
    {busy}("execute_input", {{"code": "print(6 * 7)", "execution_count": 1}}),
    ("stream", {{"name": "stdout", "text": "42\\n"}}),
    {idle}
])
"""


def forge(parent: str | None) -> str:
    """A cell forging a whole run of ``print(6 * 7)`` for ``parent`` (its own request: None)."""
    if parent is None:  # a second execute_input for the running cell; the kernel's idle ends it
        return FORGE.format(parent="None", busy="", idle="")
    busy = '("status", {"execution_state": "busy"}), '
    idle = '("status", {"execution_state": "idle"}),'
    return FORGE.format(parent=repr(parent), busy=busy, idle=idle)


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    from conftest import server_config

    return server_config(tmp_path, [task_root], turn_timeout=30.0, profile="cibench")


async def turns_of(api, attempt_id: str) -> list[dict]:
    code, turns = await api("GET", f"attempts/{attempt_id}/turns")
    assert code == 200, turns
    return turns


@pytest.mark.parametrize("protocol", [V1, LEGACY], ids=["v1", "json"])
async def test_a_forged_execute_input_does_not_change_the_recorded_code(
    start_attempt, api, jp_ws_fetch, protocol
):
    b = await start_attempt()
    ws = await KernelSocket.open(jp_ws_fetch, b.kernel_id, protocol)
    real = forge(None) + "probe = 'mine'\n"
    try:
        msg_id = await ws.execute(real)
    finally:
        ws.close()
    body = {"step": 0, "kernel_id": b.kernel_id, "msg_id": msg_id}
    code, result = await api("POST", f"attempts/{b.attempt['id']}/turns", body)
    assert code == 200, result
    (turn,) = await turns_of(api, b.attempt["id"])
    assert turn["code"] == real  # not the forged "print(6 * 7)"


async def test_a_msg_id_the_server_never_sent_is_refused(start_attempt, api, jp_ws_fetch):
    b = await start_attempt()
    fabricated = uuid.uuid4().hex
    ws = await KernelSocket.open(jp_ws_fetch, b.kernel_id)
    try:  # a real cell publishes a complete, passing run under a request nobody sent
        await ws.execute(forge(fabricated))
    finally:
        ws.close()
    body = {"step": 0, "kernel_id": b.kernel_id, "msg_id": fabricated}
    code, result = await api("POST", f"attempts/{b.attempt['id']}/turns", body)
    assert code == 400, result
    assert "msg_id" in result["error"] and "\n" not in result["error"], result
    assert await turns_of(api, b.attempt["id"]) == []
