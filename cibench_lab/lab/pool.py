"""The warm kernel pool in the lab: Start takes a waiting kernel instead of starting one.

The server's kernels are jupyter_server's (its mapping kernel manager holds them, the
browser connects to them by id).  A pooled lab kernel is made by that manager's own
factory (:class:`ServerKernel`), so it is the same kind of kernel a session would start,
but it is not registered: no listing, culler or event handler sees it while it waits.
Start (:meth:`LabKernels.place`) moves one into the attempt's folder and leaves a
*claim* on that folder; the session the lab then creates starts its kernel there, and
the manager, with :class:`PooledKernels` mixed in (:func:`apply_pool`, when the pool is
on), registers the claimed kernel instead of launching a new one.  The lab's bind then
runs the start code on it, as on a fresh kernel.  A restart of that kernel launches a
fresh one in the attempt's folder (its launch arguments name the folder, not the slot).
"""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..benchmarks import pooled
from ..kernels.executor import KernelExecutor, ready
from ..kernels.pool import KernelPool, PoolKey, PoolSettings, pool_key
from ..kernels.preimport import task_imports
from ..kernels.spec import KERNEL_NAME
from ..play.workspace import copy_data
from ..tasks.model import Task

CLAIMS = "_cibench_claims"  # the manager's attribute: {attempt folder: its claimed kernel manager}
REFILL_AFTER_BIND = 1.0  # s after the lab bound a Start's kernel (its kernel_info, widget state)
REFILL_WITHOUT_BIND = 5.0  # s after the server's part of a Start when the lab binds nothing


class ServerKernel(KernelExecutor):
    """A pooled kernel started by the server's kernel manager's factory, not registered in it."""

    def __init__(self, cwd: Path, manager: Any):
        super().__init__(cwd)
        self.manager = manager

    async def launch(self) -> None:
        mkm = self.manager
        kernel_id = str(uuid.uuid4())
        extra = {"kernel_spec_manager": mkm.kernel_spec_manager} if mkm.kernel_spec_manager else {}
        self.km = mkm.kernel_manager_factory(
            connection_file=os.path.join(mkm.connection_dir, f"kernel-{kernel_id}.json"),
            parent=mkm,
            log=mkm.log,
            kernel_name=KERNEL_NAME,
            **extra,
        )
        await self.km.start_kernel(cwd=str(self.cwd), kernel_id=kernel_id)
        self.kc = self.km.client()
        self.kc.start_channels()
        await ready(self.kc, self.km)

    def release(self) -> Any:
        """Hand the kernel manager over (to the server's manager): this client stops."""
        if self.kc is not None:
            self.kc.stop_channels()
        km, self.km, self.kc = self.km, None, None
        return km


class LabKernels:
    """The lab's pool (None settings or size 0: off, :meth:`place` only copies the data)."""

    def __init__(self, serverapp: Any, attempts_root: Path, settings: PoolSettings | None):
        self.app = serverapp
        self.settings = settings or PoolSettings()
        factory = functools.partial(ServerKernel, manager=serverapp.kernel_manager)
        on = self.settings.enabled
        self.pool = KernelPool(attempts_root, self.settings, factory=factory) if on else None
        self.later: dict[str, tuple[Task, asyncio.TimerHandle]] = {}  # refills after a Start
        self.bound: set[str] = set()  # of those, the Starts whose notebook bound its kernel

    @property
    def claims(self) -> dict[str, Any]:
        km = self.app.kernel_manager
        if not hasattr(km, CLAIMS):
            setattr(km, CLAIMS, {})
        return getattr(km, CLAIMS)

    async def place(self, task: Task, folder: Path) -> bool:
        """The attempt's folder with the task's data, and a waiting kernel moved into it when the
        pool has one (True: the session's kernel will be that one)."""
        copy = functools.partial(copy_data, task)
        if self.pool is None or not pooled(task):
            await asyncio.to_thread(copy, folder)
            return False
        warm = await self.pool.move(pool_key(task), folder, copy, refill=False)
        if warm is None:
            await asyncio.to_thread(copy, folder)
            return False
        assert isinstance(warm, ServerKernel)
        km = warm.release()
        km._launch_args["cwd"] = str(folder)  # a restart starts a fresh kernel here
        self.claims[os.path.realpath(folder)] = km
        return True

    def prefill(self, tasks: Iterable[Task]) -> None:
        """At the server's start: warm kernels of the library's keys, the ones most tasks share
        first, ``size`` of each, started one at a time in the background within the memory
        budget (so a first Start finds one too); each pre-imports what the key's tasks import."""
        if self.pool is None:
            return
        from ..kernels.interpreter import kernel_python

        environment = kernel_python()
        counts: Counter[PoolKey] = Counter()
        imports: dict[PoolKey, set[str]] = {}
        for task in filter(pooled, tasks):
            key = pool_key(task, environment)
            counts[key] += 1
            imports.setdefault(key, set()).update(task_imports(task))
        for key in sorted(counts, key=lambda k: (-counts[k], k)):
            for _ in range(self.settings.size):
                self.pool.expect(key, imports=imports[key])

    def refill(self, task: Task) -> None:
        """Another kernel of ``task``'s key for the next Start, now."""
        if self.pool is not None and pooled(task):
            self.pool.expect(pool_key(task), soon=True, imports=task_imports(task))

    def refill_after_start(self, task: Task, attempt_id: str) -> None:
        """After the server's part of a Start: refill once the lab's part is over too — the
        notebook bound its kernel (:meth:`started`) and had ``REFILL_AFTER_BIND`` s to settle,
        or ``REFILL_WITHOUT_BIND`` s passed — so starting the next kernel (a second or more
        of CPU) does not compete with this Start's notebook opening."""
        if self.pool is None or not pooled(task):
            return
        loop = asyncio.get_running_loop()
        self.later[attempt_id] = (task, loop.call_later(REFILL_WITHOUT_BIND, self._refill, attempt_id))

    def started(self, attempt_id: str) -> None:
        """The lab bound the attempt's kernel: its refill follows shortly (once)."""
        pending = self.later.get(attempt_id)
        if pending is not None and attempt_id not in self.bound:
            self.bound.add(attempt_id)
            pending[1].cancel()
            handle = asyncio.get_running_loop().call_later(REFILL_AFTER_BIND, self._refill, attempt_id)
            self.later[attempt_id] = (pending[0], handle)

    def _refill(self, attempt_id: str) -> None:
        pending = self.later.pop(attempt_id, None)
        self.bound.discard(attempt_id)
        if pending is not None:
            self.refill(pending[0])

    async def unclaimed(self, folder: Path) -> None:
        """After the session started: a claim the manager did not take is shut down."""
        km = self.claims.pop(os.path.realpath(folder), None)
        if km is not None:
            await km.shutdown_kernel(now=True)

    async def close(self) -> None:
        for _, handle in self.later.values():
            handle.cancel()
        self.later.clear()
        self.bound.clear()
        for folder in list(self.claims):
            await self.unclaimed(Path(folder))
        if self.pool is not None:
            await self.pool.close()


class PooledKernels:
    """Mixed into the server's kernel manager: a kernel started in a claimed folder is the
    claimed, already running one."""

    def pre_start_kernel(self, kernel_name: str | None, kwargs: Any) -> tuple[Any, str, str]:
        claims = getattr(self, CLAIMS, {})
        cwd = os.path.realpath(str(kwargs.get("cwd") or ""))
        name = kernel_name or getattr(self, "default_kernel_name", "")
        km = claims.pop(cwd, None) if name == KERNEL_NAME and "kernel_id" not in kwargs else None
        if km is None:
            return super().pre_start_kernel(kernel_name, kwargs)  # type: ignore[misc]

        async def running(**_: Any) -> None:
            del km.start_kernel  # it is running: nothing to start, and a restart starts for real

        km.start_kernel = running
        return km, KERNEL_NAME, km.kernel_id


def apply_pool(serverapp: Any) -> None:
    """Mix :class:`PooledKernels` into the server's kernel manager class (before it is built)."""
    from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

    base = serverapp.kernel_manager_class if serverapp.trait_has_value("kernel_manager_class") else None
    base = base or AsyncMappingKernelManager
    if not issubclass(base, PooledKernels):
        serverapp.kernel_manager_class = type(f"Pooled{base.__name__}", (PooledKernels, base), {})
