"""What a worker and the driver of a distributed run say to each other about an attempt.

One Dask Queue per driver session carries, in the order they were put, the messages of every
worker playing one of the session's attempts:

- a *hello*, when a worker starts (or, after a lost worker, starts again) an attempt:
  ``{"hello": NONCE, "attempt_id": ...}``.  The driver, having applied everything queued before
  it, answers by setting the Variable :func:`reply_name` to the attempt's rows as the results
  database holds them: the worker goes on from every turn recorded so far.  From then on the
  driver takes the attempt's rows only under that nonce, so a worker it gave up on (a lost
  heartbeat, yet still running) cannot write over the one that took its place.
- *deltas*, after every transition the worker records: the rows changed since its last delta
  (:func:`.replica.changed`), numbered 1, 2, ... under its nonce.  Only what changed travels,
  once: an attempt's rows (plots included) are sent whole only in the driver's answer.

The Dask task's result is :meth:`Link.last` — the nonce and the number of its last delta; the
driver ends the attempt once it has applied that delta.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from . import replica

STOPPED_AFTER = 5.0  # seconds without the session's live Variable: the driver is gone or stopped the run
LIVE_EVERY = 1.0  # seconds between a worker's looks at that Variable while it publishes
ANSWER_WITHIN = 300.0  # seconds a worker waits for the driver's answer to its hello


class Stopped(Exception):
    """The driver stopped following this attempt (Ctrl-C, a lost lease): the worker stops too."""


def live_name(session: str) -> str:
    """A Variable the driver holds while it follows the session's attempts."""
    return f"cibench-lab:{session}:live"


def queue_name(session: str) -> str:
    return f"cibench-lab:{session}:rows"


def reply_name(session: str, nonce: str) -> str:
    """The Variable the driver answers a worker's hello in (the worker deletes it once read)."""
    return f"cibench-lab:{session}:reply:{nonce}"


def is_hello(message: dict[str, Any]) -> bool:
    return "hello" in message


class Link:
    """A worker's end: the hello, then a delta after every recorded transition (thread-safe:
    an attempt's writes may publish from several threads)."""

    def __init__(self, session: str, attempt_id: str):
        from distributed import Queue, Variable

        self.session, self.attempt_id = session, attempt_id
        self.nonce = uuid.uuid4().hex
        self.queue, self.live = Queue(queue_name(session)), Variable(live_name(session))
        self.sent: dict[tuple, dict[str, Any]] = {}
        self.seq = 0
        self._checked = float("-inf")
        self._lock = threading.Lock()

    def hello(self) -> replica.Rows:
        """Say the attempt starts here; the rows the driver answers with."""
        from distributed import Variable

        self.queue.put({"hello": self.nonce, "attempt_id": self.attempt_id})
        reply = Variable(reply_name(self.session, self.nonce))
        deadline = time.monotonic() + ANSWER_WITHIN
        while time.monotonic() < deadline:
            self.check_live(force=True)
            try:
                rows = reply.get(timeout=1)
            except TimeoutError:
                continue
            reply.delete()
            self.sent = replica.keys(rows)
            return rows
        raise Stopped(f"attempt {self.attempt_id}: the driver did not answer in {ANSWER_WITHIN:.0f} s")

    def check_live(self, force: bool = False) -> None:
        """Stopped when the driver no longer follows the session (looked at once a second)."""
        now = time.monotonic()
        if not force and now - self._checked < LIVE_EVERY:
            return
        try:
            self.live.get(timeout=STOPPED_AFTER)  # deleted by the driver: its run is over
        except TimeoutError:
            raise Stopped(f"attempt {self.attempt_id}: the driver stopped the run") from None
        self._checked = now

    def publish(self, dump: Callable[[], replica.Rows]) -> None:
        """Queue what changed since the last delta in the rows ``dump`` reads (read under the
        lock: deltas are read in the order they are queued)."""
        with self._lock:
            self.check_live()
            self.seq += 1
            delta = replica.changed(dump(), self.sent)
            self.queue.put({**delta, "nonce": self.nonce, "seq": self.seq})

    def last(self) -> dict[str, Any]:
        return {"nonce": self.nonce, "seq": self.seq}
