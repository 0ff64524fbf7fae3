"""A turn is a request the server saw: the execute requests the lab's kernel websocket forwards.

The browser's cells reach a task kernel through jupyter_server's kernel websocket; the server
watches that path (a subclass of the configured ``ZMQChannelsWebsocketConnection``, set as the web
app's ``kernel_websocket_connection_class``) and tells the capture (:mod:`.capture`) of every shell
``execute_request`` it forwards: its msg_id, its code, its session.  Only such a request can become
a graded turn, and its code is the one recorded — whatever the kernel later publishes as its
``execute_input``.  Everything else on the websocket passes untouched: of a shell message only its
header is read (the v1 protocol's raw frame is not parsed unless it names ``execute_request``).
The server's own clients (hidden work, headless runs: :func:`.executor.execute`) make their record
from the request they send.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from jupyter_server.services.kernels.connection.base import deserialize_binary_message
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection

V1 = "v1.kernel.websocket.jupyter.org"
EXECUTE = "execute_request"
_MARK = EXECUTE.encode()


class Sink(Protocol):
    def sent(self, kernel_id: str, msg_id: str, code: str, session: str | None) -> None: ...


def v1_request(frame: bytes) -> tuple[str, str, str | None] | None:
    """The execute request in a v1 websocket frame (offsets, channel, header, parent, metadata,
    content, buffers), or None — the channel and header read first, the content only for one."""
    count = int.from_bytes(frame[:8], "little")
    if count < 6:
        return None
    offsets = [int.from_bytes(frame[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(6)]
    if frame[offsets[0] : offsets[1]] != b"shell" or _MARK not in frame[offsets[1] : offsets[2]]:
        return None
    header = json.loads(frame[offsets[1] : offsets[2]])
    content = json.loads(frame[offsets[4] : offsets[5]])
    return _fields(header, content)


def legacy_request(message: str | bytes) -> tuple[str, str, str | None] | None:
    """The execute request in a legacy (JSON, or binary with buffers) websocket message, or None."""
    if isinstance(message, bytes):
        if _MARK not in message:
            return None
        msg = deserialize_binary_message(message)
    elif EXECUTE not in message:
        return None
    else:
        msg = json.loads(message)
    if (msg.get("channel") or "shell") != "shell":  # (jupyter_server sends a channel-less one to shell)
        return None
    return _fields(msg.get("header"), msg.get("content"))


def _fields(header: Any, content: Any) -> tuple[str, str, str | None] | None:
    if not (isinstance(header, dict) and isinstance(content, dict)) or header.get("msg_type") != EXECUTE:
        return None
    msg_id, code, session = header.get("msg_id"), content.get("code"), header.get("session")
    if not (isinstance(msg_id, str) and isinstance(code, str)):
        return None
    return msg_id, code, session if isinstance(session, str) else None


class SeenRequests:
    """Mixed into the kernel websocket connection: each shell execute request it forwards is told
    to ``sink`` (set on the class :func:`watch_requests` builds)."""

    sink: Sink

    def handle_incoming_message(self, incoming_msg: Any) -> None:
        request = self._execute_request(incoming_msg)
        super().handle_incoming_message(incoming_msg)  # type: ignore[misc]
        if request is not None:  # forwarded (the checks below are the ones the base makes)
            self.sink.sent(self.kernel_id, *request)  # type: ignore[attr-defined]

    def _execute_request(self, message: Any) -> tuple[str, str, str | None] | None:
        base: Any = self
        allowed = base.multi_kernel_manager.allowed_message_types
        if "shell" not in base.channels or (allowed and EXECUTE not in allowed):
            return None
        try:
            if base.subprotocol == V1:
                return v1_request(message)
            return legacy_request(message)
        except (ValueError, TypeError, IndexError, KeyError):  # the base logs what it cannot read
            return None


def watch_requests(settings: dict[str, Any], sink: Sink) -> str | None:
    """Make the web app's kernel websockets tell ``sink`` of the execute requests they forward;
    a problem (a connection class that is not jupyter_server's ZMQ one) as one line, else None."""
    base = settings.get("kernel_websocket_connection_class") or ZMQChannelsWebsocketConnection
    if not (isinstance(base, type) and issubclass(base, ZMQChannelsWebsocketConnection)):
        name = getattr(base, "__name__", base)
        return (
            f"ServerApp.kernel_websocket_connection_class is {name}: cibench-lab grades only the runs it "
            "sees sent, through jupyter_server's ZMQChannelsWebsocketConnection (or a subclass)"
        )
    if not issubclass(base, SeenRequests):
        base = type(f"Seen{base.__name__}", (SeenRequests, base), {"sink": sink})
    else:
        base.sink = sink
    settings["kernel_websocket_connection_class"] = base
    return None
