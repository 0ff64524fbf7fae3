"""One execution on a kernel, assembled from its IOPub messages.

Both executors make an :class:`Execution` of each ``execute_request`` they see sent — the lab
capture the requests the lab's kernel websocket forwards (:mod:`.sent`), the headless executor
and the server's hidden work the ones their own client sends — and feed it the IOPub messages
under that request.  So what is graded is always what the kernel itself published, never what a
browser reports, and its code is the request's: a cell can publish anything on IOPub, another
``execute_input`` included, so the kernel's word on what it ran is not taken.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import time
from dataclasses import dataclass, field
from typing import Any

from nbformat.v4 import output_from_msg

from ..grading.render import join_text
from ..tasks.plot import FIGURE_MIME

#: Output kinds kept from IOPub (everything else — status, comm, … — is ignored).
OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}
#: Bounds on what is kept per execution, so a runaway print cannot exhaust memory: text
#: (streams, tracebacks, text reprs) and, separately, images (a large plot's PNG can be tens
#: of MB in base64 and must still reach the graders; a figure's structure, JSON up to 1 MB
#: beside its PNG, counts with the images).  What is over is dropped and the turn records
#: ``truncated``.
MAX_TEXT = 4 * 1024 * 1024
MAX_IMAGES = 64 * 1024 * 1024


@dataclass
class Execution:
    """What the kernel published for one execute request (keyed by its msg_id)."""

    msg_id: str
    code: str | None = None  # the request's code, as it was sent
    execution_count: int | None = None  # from the first execute_input
    session: str | None = None  # the requesting client's session id (its request header's)
    began: bool = False  # the kernel published its (first) execute_input: it runs
    error: bool = False
    status: str = "ok"  # ok | error | timeout | dead
    first_seen: float = field(default_factory=time.time)  # sent; then its first IOPub message
    finished: float | None = None
    truncated: bool = False
    malformed: int = 0  # IOPub messages for it that were not as the protocol says: ignored
    stopped: str | None = None  # a timed-out turn: "interrupted" or "restarted"
    died: str | None = None  # a dead kernel: why, as far as its process tells
    _heard: bool = False
    _size: int = 0
    _image_size: int = 0
    _done: asyncio.Event | None = None
    _outputs: list[dict[str, Any]] = field(default_factory=list)
    _tail: list[str] = field(default_factory=list)  # the text chunks of the last output, a stream

    @property
    def done(self) -> bool:
        return self.finished is not None

    @property
    def outputs(self) -> list[dict[str, Any]]:
        """The nbformat outputs so far, a stream's consecutive chunks joined into one output
        (joined when read, so a stream of many small messages costs one pass, not a copy each)."""
        self._join_tail()
        return self._outputs

    def _join_tail(self) -> None:
        if len(self._tail) > 1:
            joined = "".join(self._tail)
            self._outputs[-1]["text"] = joined
            self._tail = [joined]

    def add(self, msg: dict[str, Any]) -> None:
        """Fold one IOPub message (already deserialized) into the record; a malformed one (the
        kernel's code can publish anything) is only counted (``malformed``)."""
        kind = msg["header"]["msg_type"]
        content = msg.get("content", {})
        if not well_formed(kind, content):
            self.malformed += 1
            return
        if not self._heard:  # it starts when the kernel takes it up, not when it was queued
            self._heard, self.first_seen = True, time.time()
        if kind == "execute_input":
            if not self.began:  # a later one is a cell's own doing: ignored (its code never is taken)
                self.began = True
                self.execution_count = content.get("execution_count")
        elif kind == "clear_output":
            self._outputs.clear()
            self._tail = []
            self._size = self._image_size = 0
        elif kind in OUTPUT_TYPES:
            self._add_output(kind, msg)
        elif kind == "status" and content.get("execution_state") == "idle":
            self.finish()

    def _add_output(self, kind: str, msg: dict[str, Any]) -> None:
        if kind == "error":
            self.error = True
            self.status = "error"
        size, image_size = _size_of(msg.get("content", {}))
        if self._size + size > MAX_TEXT or self._image_size + image_size > MAX_IMAGES:
            self.truncated = True
            return
        self._size += size
        self._image_size += image_size
        output = dict(output_from_msg(msg))
        if kind == "stream" and self._tail and self._outputs[-1].get("name") == output.get("name"):
            self._tail.append(output["text"])  # the same stream goes on: one output (see ``outputs``)
            return
        self._join_tail()
        self._outputs.append(output)
        self._tail = [output["text"]] if kind == "stream" else []

    def times(self) -> tuple[dt.datetime, dt.datetime]:
        """When it started and finished, in naive UTC as the database keeps times."""
        finished = self.finished if self.finished is not None else time.time()
        return _utc(self.first_seen), _utc(finished)

    def facts(self) -> dict[str, Any]:
        """What its turn's record says of it beyond the outputs: ``truncated`` when the
        outputs were cut at ``MAX_TEXT`` or ``MAX_IMAGES``; how a timed-out turn was
        stopped (``stopped``); why the kernel died (``kernel.died``); how many malformed IOPub
        messages were ignored (``malformed``)."""
        facts: dict[str, Any] = {"truncated": True} if self.truncated else {}
        if self.malformed:
            facts["malformed"] = self.malformed
        if self.stopped:
            facts["stopped"] = self.stopped
        if self.died:
            facts["kernel"] = {"died": self.died}
        return facts

    def timed_out(self, stopped: str | None) -> None:
        """Over its time: recorded as ``timeout``, with how the kernel was stopped."""
        self.stopped, self.died = stopped, None
        self.finish("timeout")

    def lost(self, reason: str) -> None:
        """Its kernel died or was replaced before it finished: recorded as ``dead``."""
        if not self.done:
            self.died = reason
            self.finish("dead")

    def finish(self, status: str | None = None) -> None:
        if status:
            self.status = status
            self.error = True
        if self.finished is None:
            self.finished = time.time()
        if self._done is not None:
            self._done.set()

    async def wait(self, timeout: float) -> bool:
        """Wait for the kernel's idle status for this request; False on timeout."""
        if self.done:
            return True
        if self._done is None:
            self._done = asyncio.Event()
        try:
            await asyncio.wait_for(self._done.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _mime_bundle(data: Any) -> bool:
    """A MIME bundle as the protocol has it: text values, a JSON value only under a JSON type."""
    return isinstance(data, dict) and all(
        isinstance(mime, str) and (isinstance(value, str) or mime.endswith("json"))
        for mime, value in data.items()
    )


#: What the protocol says each kept message's content holds (the others are not read).
_SHAPES: dict[str, Any] = {
    "execute_input": lambda c: isinstance(c.get("code", ""), str),
    "stream": lambda c: c.get("name") in ("stdout", "stderr") and isinstance(c.get("text"), str),
    "display_data": lambda c: _mime_bundle(c.get("data")) and isinstance(c.get("metadata", {}), dict),
    "execute_result": lambda c: _mime_bundle(c.get("data")) and isinstance(c.get("metadata", {}), dict),
    "error": lambda c: (
        isinstance(c.get("ename"), str) and isinstance(c.get("evalue"), str) and _strings(c.get("traceback"))
    ),
}


def well_formed(kind: Any, content: Any) -> bool:
    """Whether an IOPub message of type ``kind`` with ``content`` is as the protocol says, as far
    as the record reads it (a kernel's code can publish anything on its IOPub)."""
    if not isinstance(content, dict):
        return False
    shape = _SHAPES.get(kind)
    return shape is None or bool(shape(content))


def joined_streams(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``outputs`` (nbformat) with each run of consecutive chunks of one stream as one output,
    as :class:`Execution` keeps them (for outputs read from elsewhere: a task notebook's)."""
    out: list[dict[str, Any]] = []
    for o in outputs:
        last = out[-1] if out else {}
        if (
            o.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == o.get("name")
        ):
            out[-1] = {**last, "text": join_text(last.get("text")) + join_text(o.get("text"))}
        else:
            out.append(o)
    return out


def _utc(stamp: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(stamp, dt.timezone.utc)


def _size_of(content: dict[str, Any]) -> tuple[int, int]:
    """(text size, image size) of an output message's content; a JSON value (a ``+json``
    MIME type) by its serialized length."""
    if "text" in content:
        return len(content["text"]), 0
    text = len(str(content.get("traceback", "")))
    image = 0
    for mime, value in (content.get("data") or {}).items():
        size = len(value) if isinstance(value, str) else _json_size(value)
        if mime.startswith("image/") or mime == FIGURE_MIME:
            image += size
        else:
            text += size
    return text, image


def _json_size(value: Any) -> int:
    try:
        return len(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return MAX_TEXT + 1  # not JSON as published: never kept
