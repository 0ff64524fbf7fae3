"""Lab executor's eyes: the server's own IOPub subscription to each task kernel.

The browser runs the cells; the server subscribes to the kernel's IOPub when the
kernel starts (PUB/SUB drops what was published before a subscriber connects)
and folds every message into an :class:`Execution` keyed by the request's
``msg_id``.  A turn is graded from that record, never from what the browser says.
Only requests the server saw go to the kernel have a record (:meth:`KernelCapture.sent`: the
lab's kernel websocket tells it, :mod:`.sent`), holding the request's code; IOPub messages under
any other parent — a cell can publish whatever it likes on IOPub — are not counted.
An execution still running when its kernel dies (the kernel manager's restarter
notices within seconds) or is restarted is finished as ``dead`` at once.  A listener
(the action trace: :mod:`.trace`) hears of each execution's start (``execute_input``) and
end (its idle status, or its kernel's death), once each.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections import OrderedDict
from typing import Any, Protocol

from ..errors import BadInput
from ..kernels.execution import Execution

log = logging.getLogger(__name__)
KEEP = 256  # executions remembered per kernel
SENT_WAIT = 5.0  # seconds a reported msg_id may wait for its request (a websocket frame late after the POST)


class Listener(Protocol):
    def started(self, kernel_id: str, ex: Execution) -> None: ...

    def finished(self, kernel_id: str, ex: Execution) -> None: ...


class KernelCapture:
    """Executions seen on one kernel's IOPub, most recent ``KEEP`` of them."""

    def __init__(self, kernel_id: str, session: Any, stream: Any, listener: Listener | None = None):
        self.kernel_id = kernel_id
        self.session = session
        self.stream = stream
        self.listener = listener
        self.executions: OrderedDict[str, Execution] = OrderedDict()
        self.told: set[str] = set()  # msg_ids whose end the listener heard
        self.awaited: dict[str, asyncio.Event] = {}  # msg_ids reported before their request was seen
        stream.on_recv(self._on_recv)

    def sent(self, msg_id: str, code: str, session: str | None) -> None:
        """An execute request went to the kernel through the server: its record, with its code."""
        if msg_id in self.executions:  # a msg_id sent again: the first request's record stays
            return
        self.executions[msg_id] = Execution(msg_id=msg_id, code=code, session=session)
        while len(self.executions) > KEEP:
            self.told.discard(self.executions.popitem(last=False)[0])
        event = self.awaited.pop(msg_id, None)
        if event is not None:
            event.set()

    async def requested(self, msg_id: str, timeout: float = SENT_WAIT) -> Execution | None:
        """The record of request ``msg_id``, waiting up to ``timeout`` for it to be sent; None
        when the server saw no such request go to this kernel."""
        if msg_id not in self.executions and timeout > 0:
            event = self.awaited.setdefault(msg_id, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            finally:
                if self.awaited.get(msg_id) is event and not event.is_set():
                    del self.awaited[msg_id]
        return self.executions.get(msg_id)

    def _on_recv(self, frames: list) -> None:
        try:
            _, frames = self.session.feed_identities(frames)
            msg = self.session.deserialize(frames, content=True)
        except Exception:  # a malformed frame must not kill the subscription
            log.exception("cibench-lab: could not decode an IOPub message")
            return
        parent = (msg.get("parent_header") or {}).get("msg_id")
        ex = self.executions.get(parent) if isinstance(parent, str) else None
        if ex is None:  # a request the server did not see sent: counted toward nothing
            return
        began = ex.began
        try:
            ex.add(msg)
        except Exception as err:  # what the record cannot read is dropped, in one line
            ex.malformed += 1
            kind = msg.get("header", {}).get("msg_type")
            log.warning(
                "cibench-lab: kernel %s: IOPub %r ignored (%s)", self.kernel_id, kind, type(err).__name__
            )
            return
        self._tell(ex, msg["header"]["msg_type"], msg.get("content") or {}, began)

    def _tell(self, ex: Execution, kind: str, content: dict[str, Any], began: bool) -> None:
        if self.listener is None:
            return
        try:
            if kind == "execute_input" and not began:
                self.listener.started(self.kernel_id, ex)
            elif kind == "status" and content.get("execution_state") == "idle":
                self._finished(ex)
        except Exception:  # the record must not kill the subscription either
            log.exception("cibench-lab: the capture's listener failed")

    def _finished(self, ex: Execution) -> None:
        if self.listener is not None and ex.began and ex.msg_id not in self.told:
            self.told.add(ex.msg_id)
            self.listener.finished(self.kernel_id, ex)

    def lost(self, reason: str) -> None:
        """The kernel is gone: every execution still running on it is ``dead``."""
        for ex in list(self.executions.values()):
            ex.lost(reason)
            try:
                self._finished(ex)  # (a timed-out run whose kernel was restarted ends here)
            except Exception:
                log.exception("cibench-lab: the capture's listener failed")

    def close(self) -> None:
        try:
            self.stream.close()
        except Exception:
            log.debug("cibench-lab: closing IOPub stream failed", exc_info=True)


class Captures:
    """One KernelCapture per watched kernel of the server's kernel manager."""

    def __init__(self, kernel_manager: Any, listener: Listener | None = None):
        self.km = kernel_manager
        self.listener = listener  # told of every execution's start and end
        self.by_kernel: dict[str, KernelCapture] = {}
        self.hooked: set[str] = set()  # kernels whose restarter tells us of their death

    def watch(self, kernel_id: str) -> KernelCapture:
        cap = self.by_kernel.get(kernel_id)
        if cap is None:
            kernel = self.km.get_kernel(kernel_id)
            cap = KernelCapture(kernel_id, kernel.session, kernel.connect_iopub(), self.listener)
            self.by_kernel[kernel_id] = cap
        if kernel_id not in self.hooked:
            self.hooked.add(kernel_id)
            died = functools.partial(self._died, kernel_id)
            for event in ("restart", "dead"):  # "restart": it died and will be restarted
                self.km.add_restart_callback(kernel_id, died, event)
        return cap

    def _died(self, kernel_id: str) -> None:
        cap = self.by_kernel.get(kernel_id)
        if cap is not None:  # (a kernel whose restarts all failed has left the manager)
            cap.lost(death_reason(self.km.get_kernel(kernel_id) if kernel_id in self.km else None))

    def forget(self, kernel_id: str, reason: str = "the kernel was restarted") -> None:
        """Stop watching the kernel's IOPub; what still runs on it is ``dead`` (``reason``)."""
        cap = self.by_kernel.pop(kernel_id, None)
        if cap is not None:
            cap.lost(reason)
            cap.close()

    def shutdown(self, kernel_id: str) -> None:
        self.forget(kernel_id, "the kernel was shut down")
        self.hooked.discard(kernel_id)

    def get(self, kernel_id: str) -> KernelCapture | None:
        return self.by_kernel.get(kernel_id)

    async def requested(self, kernel_id: str, msg_id: str) -> Execution:
        """The record of execute request ``msg_id``, which the server saw go to the kernel (its code
        is the request's); a msg_id it never saw sent is refused."""
        ex = await self.watch(kernel_id).requested(msg_id)
        if ex is None:
            raise BadInput(f"msg_id: this server sent no execute request {msg_id} to kernel {kernel_id}")
        return ex

    def sent(self, kernel_id: str, msg_id: str, code: str, session: str | None) -> None:
        """An execute request went to a watched kernel through the server (:mod:`.sent`)."""
        cap = self.by_kernel.get(kernel_id)
        if cap is not None:  # (not a task kernel, or one whose restart is being noticed)
            cap.sent(msg_id, code, session)


def death_reason(kernel: Any) -> str:
    """Why a dead kernel is gone, as far as its process tells ("exit code -9", ...)."""
    process = getattr(getattr(kernel, "provisioner", None), "process", None)
    try:
        code = process.poll() if process is not None else None
    except Exception:  # not a local process: say what we know
        code = None
    return f"the kernel process exited (exit code {code})" if code is not None else "the kernel died"
