"""A kernel's websocket through the Jupyter server, opened and spoken as JupyterLab does: the
``v1.kernel.websocket.jupyter.org`` binary protocol (JupyterLab 4's) or the legacy JSON one."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import uuid
from typing import Any

import tornado.httpclient
import tornado.websocket
from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)

V1 = "v1.kernel.websocket.jupyter.org"
LEGACY = ""


def request(msg_type: str, content: dict[str, Any], session: str, msg_id: str | None = None) -> dict:
    """A kernel message as a client makes it (a fresh uuid msg_id unless given)."""
    header = {
        "msg_id": msg_id or uuid.uuid4().hex,
        "msg_type": msg_type,
        "username": "",
        "session": session,
        "version": "5.3",
        "date": "",
    }
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content}


def execute_request(code: str, session: str, msg_id: str | None = None, **extra: Any) -> dict:
    content = {
        "code": code,
        "silent": False,
        "store_history": True,
        "user_expressions": {},
        "allow_stdin": False,
        "stop_on_error": True,
        **extra,
    }
    return request("execute_request", content, session, msg_id)


class KernelSocket:
    """One websocket to a kernel (``open``), sending requests and reading what comes back."""

    def __init__(self, conn: Any, protocol: str):
        self.conn = conn
        self.protocol = protocol
        self.session = uuid.uuid4().hex

    @classmethod
    async def open(cls, ws_fetch: Any, kernel_id: str, protocol: str = V1) -> KernelSocket:
        extra = {"subprotocols": [protocol]} if protocol else {}
        sid = uuid.uuid4().hex
        conn = await ws_fetch("api", "kernels", kernel_id, "channels", params={"session_id": sid}, **extra)
        socket = cls(conn, protocol)
        socket.session = sid
        return socket

    @classmethod
    async def to(cls, serverapp: Any, kernel_id: str, protocol: str = V1) -> KernelSocket:
        """``open`` without the ``jp_ws_fetch`` fixture: the server's own port, base URL and token."""
        sid = uuid.uuid4().hex
        path = f"{serverapp.base_url.rstrip('/')}/api/kernels/{kernel_id}/channels"
        url = f"ws://localhost:{serverapp.port}{path}?" + urllib.parse.urlencode({"session_id": sid})
        headers = {"Authorization": f"token {serverapp.identity_provider.token}"}
        request = tornado.httpclient.HTTPRequest(url, headers=headers, connect_timeout=60)
        subprotocols = [protocol] if protocol else None
        conn = await tornado.websocket.websocket_connect(request, subprotocols=subprotocols)
        socket = cls(conn, protocol)
        socket.session = sid
        return socket

    def send(self, msg: dict, channel: str = "shell") -> str:
        if self.protocol == V1:
            parts = [json.dumps(msg[k]).encode() for k in ("header", "parent_header", "metadata", "content")]
            self.conn.write_message(serialize_msg_to_ws_v1(parts, channel), binary=True)
        else:
            self.conn.write_message(json.dumps({**msg, "channel": channel}))
        return msg["header"]["msg_id"]

    async def read(self, timeout: float = 60) -> tuple[str, dict]:
        """The next message: (channel, message with header, parent_header and content)."""
        raw = await asyncio.wait_for(self.conn.read_message(), timeout)
        if raw is None:
            raise ConnectionError("the kernel websocket closed")
        if isinstance(raw, bytes):
            channel, parts = deserialize_msg_from_ws_v1(raw)
            keys = ("header", "parent_header", "metadata", "content")
            return channel, {k: json.loads(p) for k, p in zip(keys, parts, strict=False)}
        msg = json.loads(raw)
        return msg.get("channel", ""), msg

    async def reply(self, msg_id: str, timeout: float = 60) -> dict:
        """The shell reply to ``msg_id`` (other messages are skipped)."""
        while True:
            channel, msg = await self.read(timeout)
            if channel == "shell" and msg["parent_header"].get("msg_id") == msg_id:
                return msg

    async def execute(self, code: str, msg_id: str | None = None, **extra: Any) -> str:
        """Run ``code`` as a notebook cell does; its msg_id once the kernel answered."""
        msg_id = self.send(execute_request(code, self.session, msg_id, **extra))
        await self.reply(msg_id)
        return msg_id

    def close(self) -> None:
        self.conn.close()
