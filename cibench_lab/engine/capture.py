"""Lab executor's eyes: the server's own IOPub subscription to each task kernel.

The browser runs the cells; the server subscribes to the kernel's IOPub when the
kernel starts (PUB/SUB drops what was published before a subscriber connects)
and folds every message into an :class:`Execution` keyed by the request's
``msg_id``.  A turn is graded from that record, never from what the browser says.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from .execution import Execution

log = logging.getLogger(__name__)
KEEP = 256  # executions remembered per kernel


class KernelCapture:
    """Executions seen on one kernel's IOPub, most recent ``KEEP`` of them."""

    def __init__(self, kernel_id: str, session: Any, stream: Any):
        self.kernel_id = kernel_id
        self.session = session
        self.stream = stream
        self.executions: OrderedDict[str, Execution] = OrderedDict()
        stream.on_recv(self._on_recv)

    def _on_recv(self, frames: list) -> None:
        try:
            _, frames = self.session.feed_identities(frames)
            msg = self.session.deserialize(frames, content=True)
        except Exception:  # a malformed frame must not kill the subscription
            log.exception("cibench-lab: could not decode an IOPub message")
            return
        parent = (msg.get("parent_header") or {}).get("msg_id")
        if parent:
            self.get(parent).add(msg)

    def get(self, msg_id: str) -> Execution:
        ex = self.executions.get(msg_id)
        if ex is None:
            ex = self.executions[msg_id] = Execution(msg_id=msg_id)
            while len(self.executions) > KEEP:
                self.executions.popitem(last=False)
        return ex

    def close(self) -> None:
        try:
            self.stream.close()
        except Exception:
            log.debug("cibench-lab: closing IOPub stream failed", exc_info=True)


class Captures:
    """One KernelCapture per watched kernel of the server's kernel manager."""

    def __init__(self, kernel_manager: Any):
        self.km = kernel_manager
        self.by_kernel: dict[str, KernelCapture] = {}

    def watch(self, kernel_id: str) -> KernelCapture:
        cap = self.by_kernel.get(kernel_id)
        if cap is None:
            kernel = self.km.get_kernel(kernel_id)
            cap = KernelCapture(kernel_id, kernel.session, kernel.connect_iopub())
            self.by_kernel[kernel_id] = cap
        return cap

    def forget(self, kernel_id: str) -> None:
        cap = self.by_kernel.pop(kernel_id, None)
        if cap is not None:
            cap.close()

    def get(self, kernel_id: str) -> KernelCapture | None:
        return self.by_kernel.get(kernel_id)
