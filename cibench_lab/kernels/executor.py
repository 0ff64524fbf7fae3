"""Headless executor: a kernel this process owns, through jupyter_client's async API."""

from __future__ import annotations

import asyncio
import logging
import queue
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

from ..tasks.rendering import STOCK_72, Rendering
from .execution import Execution
from .spec import KERNEL_NAME, ensure_kernelspec, start_code

log = logging.getLogger(__name__)

#: OpenCompass's interpreter fails a run after this long without any IOPub message
#: (``get_iopub_msg(timeout=10)``); ``silence=COMPAT_SILENCE`` reproduces it.
COMPAT_SILENCE = 10.0
#: Seconds an interrupted turn may take to stop (go idle); a kernel still busy then is left
#: to the caller to restart (the turn's ``stopped`` stays unset).
INTERRUPT_GRACE = 10.0


async def execute(
    kc: AsyncKernelClient,
    km: AsyncKernelManager,
    code: str,
    timeout: float,
    silence: float | None = None,
    grace: float | None = None,
    store_history: bool = True,
) -> Execution:
    """Run ``code`` through client ``kc`` and collect its IOPub messages until idle.

    On timeout (``timeout`` seconds in all, or ``silence`` seconds without any
    IOPub message when given) the kernel is interrupted and the turn recorded as
    ``timeout``, ``stopped="interrupted"`` when it went idle within ``grace``
    seconds (default ``INTERRUPT_GRACE``) — else the kernel is still busy and
    ``stopped`` unset; a kernel that dies mid-turn gives status ``dead``.  ``store_history``
    False: hidden work, not counted in the kernel's execution count.
    """
    msg_id = kc.execute(code, store_history=store_history, allow_stdin=False)
    ex = Execution(msg_id=msg_id, code=code, session=kc.session.session)  # the request we sent
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    heard = loop.time()
    while not ex.done:
        now = loop.time()
        left = deadline - now
        quiet_left = silence - (now - heard) if silence else left
        if left <= 0 or quiet_left <= 0:
            over = timeout if left <= 0 or silence is None else silence
            await _interrupt(kc, km, ex, over, INTERRUPT_GRACE if grace is None else grace)
            break
        try:
            msg = await kc.get_iopub_msg(timeout=min(left, quiet_left, 1.0))
        except (queue.Empty, asyncio.TimeoutError):
            if not await km.is_alive():
                ex.finish("dead")
            continue
        heard = loop.time()
        if msg.get("parent_header", {}).get("msg_id") == msg_id:
            ex.add(msg)
    return ex


async def ready(kc: AsyncKernelClient, km: AsyncKernelManager, timeout: float = 60.0) -> dict:
    """Wait until client ``kc`` talks to the kernel: a ``kernel_info`` request answered on shell
    and its status seen on IOPub (a subscription made before the kernel published is the only
    proof that nothing :func:`execute` waits for is dropped); the reply's content.  As
    jupyter_client's ``wait_for_ready`` (a request again after each second unanswered), but with
    no 0.2 s of IOPub silence waited for after: :func:`execute` picks its messages by msg_id."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        msg_id = kc.kernel_info()
        reply = await _answer(kc.get_shell_msg, msg_id, 1.0)
        if reply is not None and await _answer(kc.get_iopub_msg, msg_id, 0.2) is not None:
            kc._handle_kernel_info_reply(reply)  # as wait_for_ready: the protocol version's adaptation
            return reply["content"]
        if not await km.is_alive():
            raise RuntimeError("the kernel died before it answered kernel_info")
        if loop.time() > deadline:
            raise RuntimeError(f"the kernel did not answer kernel_info in {timeout:.0f} s")


async def _answer(get: Callable[..., Awaitable[dict[str, Any]]], msg_id: str, seconds: float) -> dict | None:
    """The first message ``get`` yields in reply to ``msg_id`` within ``seconds`` (others dropped)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        try:
            msg = await get(timeout=left)
        except (queue.Empty, asyncio.TimeoutError):
            return None
        if msg.get("parent_header", {}).get("msg_id") == msg_id:
            return msg
    return None


def _only_in(spec_dir: Path) -> KernelSpecManager:
    """A kernelspec manager that looks only in the folder holding ``spec_dir``."""
    return KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])


async def _interrupt(
    kc: AsyncKernelClient, km: AsyncKernelManager, ex: Execution, timeout: float, grace: float
) -> None:
    log.info("cibench-lab: turn timed out after %ss; interrupting the kernel", timeout)
    await km.interrupt_kernel()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    try:  # drain until idle so the next request starts clean
        while not ex.done and (left := deadline - loop.time()) > 0:
            msg = await kc.get_iopub_msg(timeout=left)
            if msg.get("parent_header", {}).get("msg_id") == ex.msg_id:
                ex.add(msg)
    except (queue.Empty, asyncio.TimeoutError):
        pass
    stopped = "interrupted" if ex.done else None
    ex.finished = None
    ex.timed_out(stopped)


class KernelExecutor:
    """Runs code on one `cibench-lab` kernel started in ``cwd``; one request at a time.

    ``silence``: fail a run after that many seconds without output (the
    ``--compat-timeout`` rule); ``grace``: how long an interrupted run may take to
    stop; ``restart()`` replaces a dead (or unstoppable) kernel by a fresh one (the
    caller restores the attempt's state on it).  ``rendering``: the plot settings of the
    task it plays (``task.rendering.rendering``; default: the built-in set's); ``prelude``: code
    run after the start code on every kernel it starts (a benchmark's own interpreter set-up).
    ``spec_dir`` (set after construction): look for the kernelspec only in the folder holding it
    (what :func:`.spec.ensure_kernelspec` returned), so a stale spec elsewhere cannot shadow it;
    ``kernel_info``: the kernel's ``kernel_info`` reply content once launched.
    """

    spec_dir: Path | None = None
    kernel_info: dict | None = None

    def __init__(
        self,
        cwd: Path,
        timeout: float = 120.0,
        kernel_name: str = KERNEL_NAME,
        silence: float | None = None,
        grace: float | None = None,
        rendering: Rendering = STOCK_72,
        prelude: str = "",
    ):
        self.cwd = Path(cwd)
        self.prelude = prelude
        self.rendering = rendering
        self.timeout = timeout
        self.silence = silence
        self.grace = grace
        self.kernel_name = kernel_name
        self.km: AsyncKernelManager | None = None
        self.kc: AsyncKernelClient | None = None

    async def start(self) -> Execution:
        """Launch the kernel and run the start code (then the prelude); the start code's run."""
        await self.launch()
        started = await self.run(start_code(self.rendering))
        if self.prelude:
            await self.run(self.prelude)
        return started

    async def launch(self) -> None:
        """A kernel in ``cwd``, its client ready, nothing run on it yet (:mod:`.pool` runs the
        start code when it hands the kernel out, as :meth:`start` does on a fresh one)."""
        ensure_kernelspec()
        pinned = {} if self.spec_dir is None else {"kernel_spec_manager": _only_in(self.spec_dir)}
        self.km = AsyncKernelManager(kernel_name=self.kernel_name, **pinned)
        await self.km.start_kernel(cwd=str(self.cwd))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kernel_info = await ready(self.kc, self.km)

    async def run_silent(self, code: str) -> Execution:
        """Run ``code`` hidden: not in the kernel's history, no execution count."""
        assert self.kc is not None and self.km is not None, "executor not started"
        return await execute(self.kc, self.km, code, self.timeout, store_history=False)

    async def run(self, code: str, timeout: float | None = None) -> Execution:
        """Execute ``code`` and return everything the kernel published for it."""
        assert self.kc is not None and self.km is not None, "executor not started"
        return await execute(self.kc, self.km, code, timeout or self.timeout, self.silence, self.grace)

    async def death_reason(self) -> str:
        """Why the kernel is gone, as far as its process tells ("exit code -9", ...)."""
        code = None
        try:
            if self.km is not None and self.km.provisioner is not None:
                code = await self.km.provisioner.poll()
        except Exception:  # no provisioner / process: say what we know
            pass
        return f"the kernel process exited (exit code {code})" if code is not None else "the kernel died"

    async def restart(self) -> None:
        """A fresh kernel (and client) in the same folder, with the start code run."""
        await self.shutdown()
        await self.start()

    def pid(self) -> int | None:
        provisioner = self.km.provisioner if self.km is not None else None
        process = getattr(provisioner, "process", None)  # LocalProvisioner's Popen, None when gone
        return getattr(process, "pid", None)

    async def shutdown(self) -> None:
        if self.kc is not None:
            self.kc.stop_channels()
        if self.km is not None:
            try:
                if await self.km.is_alive():
                    await self.km.shutdown_kernel(now=True)
                else:
                    await self.km.cleanup_resources()
            except Exception:  # already gone
                log.debug("cibench-lab: kernel shutdown", exc_info=True)
        self.km, self.kc = None, None
