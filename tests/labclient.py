"""A lab server's client without a browser: the REST API with the server's token, and a cell run
the way the lab runs one — an ``execute_request`` over the server's kernel websocket
(``/api/kernels/{id}/channels``), so the server sees the request go to the kernel.

Used by the API fuzz (tests/security/test_api_fuzz.py) and bench/soak.py.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
import uuid

from kernel_socket import execute_request
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

REPLY_TIMEOUT = 60.0  # seconds for one cell's execute_reply and the kernel's idle after it


def _request(code: str, session: str) -> tuple[str, str]:
    """An execute request as the legacy JSON protocol sends it: (its msg_id, the text)."""
    msg = {**execute_request(code, session), "channel": "shell", "buffers": []}
    return msg["header"]["msg_id"], json.dumps(msg)


async def _run(url: str, token: str, kernel_id: str, code: str) -> str:
    ws_url = url.replace("http://", "ws://", 1) + f"/api/kernels/{kernel_id}/channels"
    session = uuid.uuid4().hex
    conn = await websocket_connect(
        HTTPRequest(f"{ws_url}?session_id={session}", headers={"Authorization": f"token {token}"})
    )
    try:
        msg_id, text = _request(code, session)
        await conn.write_message(text)
        replied = idle = False
        while not (replied and idle):
            raw = await asyncio.wait_for(conn.read_message(), REPLY_TIMEOUT)
            if raw is None:
                raise RuntimeError(f"kernel {kernel_id}: the websocket closed before the reply")
            msg = json.loads(raw)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            replied = replied or msg["msg_type"] == "execute_reply"
            idle = idle or (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle")
        return msg_id
    finally:
        conn.close()


class LabClient:
    """Calls to one server (``url``, e.g. http://127.0.0.1:8888) with its token."""

    def __init__(self, url: str, token: str):
        self.url, self.token = url, token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        """``method`` /cibench-lab/api/``path`` (or /api/... when ``path`` starts with /): (status, JSON)."""
        where = path if path.startswith("/") else f"/cibench-lab/api/{path}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + where, data=data, method=method)
        req.add_header("Authorization", f"token {self.token}")
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=REPLY_TIMEOUT) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def run_cell(self, kernel_id: str, code: str) -> str:
        """Run ``code`` on the server's kernel ``kernel_id``; its ``msg_id`` once the kernel is idle."""
        return asyncio.run(_run(self.url, self.token, kernel_id, code))
