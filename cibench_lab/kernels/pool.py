"""The warm kernel pool: task kernels started before an attempt needs them.

A kernel costs its start (the sandbox, ipykernel) and the first import of its task's
libraries (seconds for TensorFlow).  The pool starts kernels ahead, keyed by
:func:`pool_key` (the kernel environment and the task's library set), each sandboxed
like any task kernel, in an empty *slot* folder inside the folder attempts are made
in; the sandbox binds that slot at the fixed attempt path, so the kernel's working
directory is the one a fresh kernel gets.  While it waits it only loads into
``sys.modules`` its libraries' modules and the ones its tasks import (:mod:`.preimport`:
run silently, in a namespace of its own, so nothing is bound in the user namespace,
nothing enters the history and the execution count stays 0), at the priority a fresh
kernel has (a lower one, tried, measured no gain: docs/operate/warm-pool.md).

:meth:`KernelPool.take` hands a ready kernel to one attempt: the slot is renamed to the
attempt's folder (the sandbox's bind follows it), the task's data is copied in, and the
start code with the task's rendering runs as it does on a fresh kernel — so a warm and
a fresh kernel give the same outputs, grades and execution counts.  A kernel is handed
out once and never comes back; the pool refills in the background, one kernel at a
time, within :class:`PoolSettings` (kernels per key, total memory, idle shutdown); the
refill of a key just taken shuts down the longest-waiting kernels of other keys when the
memory budget is spent (:meth:`KernelPool.expect`, ``soon``).  A
restart, or a resumed attempt, takes a fresh kernel (the executor's own ``restart``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..tasks.model import Task
from ..tasks.rendering import Rendering
from .executor import KernelExecutor
from .memory import tree_rss
from .preimport import preimport_code
from .spec import KERNEL_NAME, start_code

log = logging.getLogger(__name__)

PoolKey = tuple[str, tuple[str, ...]]  # (kernel environment, library set)
SLOT_PREFIX = ".cibench-slot-"
DEFAULT_KERNEL_MB = 300  # the guess for a key whose kernels were never measured


@dataclass(frozen=True)
class PoolSettings:
    """How many kernels the pool keeps ready (``size`` per key; 0: the pool is off), the
    resident memory all its waiting kernels may hold together, and how long one may wait."""

    size: int = 0
    memory_mb: int = 2048
    idle_seconds: float = 600.0

    @property
    def enabled(self) -> bool:
        return self.size > 0


def pool_key(task: Task, environment: str | None = None) -> PoolKey:
    """``task``'s pool key: its kernel environment and its library set (its steps' ``modules``,
    its ``<lib>`` when they name none)."""
    if environment is None:
        from .interpreter import kernel_python

        environment = kernel_python()
    return environment, tuple(sorted(set(task.libraries or (task.lib,))))


@dataclass
class _Warm:
    executor: KernelExecutor
    slot: Path
    ready_at: float = field(default_factory=time.monotonic)
    rss: int = 0


class KernelPool:
    """Warm kernels by key, in slot folders under ``root`` (the folder attempt folders are
    made in: a slot is renamed into an attempt's folder, on the same file system)."""

    def __init__(
        self, root: Path, settings: PoolSettings, factory: Callable[[Path], KernelExecutor] | None = None
    ):
        self.root = Path(root)
        self.settings = settings
        self.factory = factory or functools.partial(KernelExecutor, kernel_name=KERNEL_NAME)
        self.ready: dict[PoolKey, list[_Warm]] = {}
        self.wanted: list[PoolKey] = []  # a kernel of each is to be started, in this order
        self.urgent: set[PoolKey] = set()  # wanted ones that may shut others down for room
        self.imports: dict[PoolKey, set[str]] = {}  # what the tasks of a key import (kernels/preimport.py)
        self.handed: set[str] = set()  # connection files of kernels handed out: never again
        self.sizes: dict[PoolKey, int] = {}  # last measured resident bytes of a key's kernel
        self._filler: asyncio.Task | None = None
        self.starting: PoolKey | None = None  # the key of the kernel being started now
        self._starting: KernelExecutor | None = None  # that kernel
        self._started = asyncio.Event()  # set (and replaced) each time a start ends
        self._closed = False

    # ---- filling -----------------------------------------------------------------
    def expect(self, key: PoolKey, soon: bool = False, imports: Iterable[str] = ()) -> None:
        """A kernel of ``key`` will be asked for: start one in the background, unless ``size``
        of them are ready already or the memory budget is spent.  ``soon`` (one of ``key`` was
        just taken): before the others wanted, and room is made for it by shutting down the
        longest-waiting kernels of other keys (a guess of the server's prefill gives way to a
        library set in use).  ``imports``: modules the task it is for imports
        (:func:`.preimport.task_imports`), pre-imported by the kernels of ``key`` started from now on."""
        if not self.settings.enabled or self._closed:
            return
        self.imports.setdefault(key, set()).update(imports)
        if soon:
            self.wanted.insert(0, key)
            self.urgent.add(key)
        else:
            self.wanted.append(key)
        if self._filler is None or self._filler.done():
            self._filler = asyncio.ensure_future(self._fill())

    async def _fill(self) -> None:
        """Start the wanted kernels, one at a time, while the budget allows."""
        while self.wanted and not self._closed:
            self._shut_idle()
            key = self.wanted.pop(0)
            urgent = key in self.urgent
            self.urgent.discard(key)
            if len(self.ready.get(key, [])) >= self.settings.size:
                continue
            if not self._room_for(key) and not (urgent and self._make_room(key)):
                continue
            self.starting = key
            try:
                warm = await self._start(key)
            except Exception:
                log.exception("cibench-lab: starting a pooled kernel for %s failed", key[1])
                continue
            finally:  # a take waiting for it looks once this task yields (ready by then, or failed)
                self.starting = None
                self._started.set()
                self._started = asyncio.Event()
            if self._closed:
                await _discard(warm)
                return
            self.ready.setdefault(key, []).append(warm)
            # looked at again once it may have waited too long
            asyncio.get_running_loop().call_later(self.settings.idle_seconds + 0.1, self._shut_idle)

    def _room_for(self, key: PoolKey) -> bool:
        held = sum(w.rss for ws in self.ready.values() for w in ws)
        guess = self.sizes.get(key, DEFAULT_KERNEL_MB * 2**20)
        return held + guess <= self.settings.memory_mb * 2**20

    def _make_room(self, key: PoolKey) -> bool:
        """Shut down waiting kernels of other keys, the longest-waiting first, until ``key``'s
        fits the budget; False (and none shut down) when it would not fit even then."""
        others = sorted((w.ready_at, k) for k, ws in self.ready.items() if k != key for w in ws)
        held = sum(w.rss for ws in self.ready.values() for w in ws)
        freed = sum(w.rss for k, ws in self.ready.items() if k != key for w in ws)
        if held - freed + self.sizes.get(key, DEFAULT_KERNEL_MB * 2**20) > self.settings.memory_mb * 2**20:
            return False
        while not self._room_for(key):
            _, other = others.pop(0)
            warm = self.ready[other].pop(0)
            asyncio.ensure_future(_discard(warm))
        return True

    async def _start(self, key: PoolKey) -> _Warm:
        slot = self.root / f"{SLOT_PREFIX}{uuid.uuid4().hex[:12]}"
        slot.mkdir(parents=True)
        executor = self.factory(slot)
        self._starting = executor
        try:
            await executor.launch()
            await executor.run_silent(preimport_code(key[1], self.imports.get(key, ())))
        except BaseException:
            await executor.shutdown()
            shutil.rmtree(slot, ignore_errors=True)
            raise
        finally:
            self._starting = None
        warm = _Warm(executor, slot)
        warm.rss = tree_rss(executor.pid())
        self.sizes[key] = warm.rss or self.sizes.get(key, 0)
        return warm

    def _shut_idle(self) -> None:
        """Kernels that waited longer than ``idle_seconds`` are shut down (and not refilled)."""
        now = time.monotonic()
        for ws in self.ready.values():
            stale = [w for w in ws if now - w.ready_at > self.settings.idle_seconds]
            for w in stale:
                ws.remove(w)
                asyncio.ensure_future(_discard(w))

    # ---- taking ------------------------------------------------------------------
    async def take(
        self,
        key: PoolKey,
        folder: Path,
        copy: Callable[[Path], None],
        *,
        rendering: Rendering,
        timeout: float,
        silence: float | None = None,
        refill: bool = True,
    ) -> KernelExecutor | None:
        """A ready kernel of ``key`` moved to ``folder`` (which must not exist yet), ``copy``
        (the data) done in it and the start code run; None when none is ready (the caller
        starts a fresh one).  ``refill``: start another of ``key`` in the background."""
        executor = await self.move(key, folder, copy, refill)
        if executor is None:
            return None
        executor.rendering, executor.timeout, executor.silence = rendering, timeout, silence
        try:
            await executor.run(start_code(rendering))
        except BaseException:
            await executor.shutdown()
            raise
        return executor

    async def move(
        self, key: PoolKey, folder: Path, copy: Callable[[Path], None], refill: bool = True
    ) -> KernelExecutor | None:
        """A ready kernel of ``key`` moved to ``folder`` (which must not exist yet) with ``copy``
        done in it, its start code not run yet (the lab runs it when it binds the kernel)."""
        self._shut_idle()
        if not self.ready.get(key) and self.starting == key:  # half started beats a fresh start
            await self._started.wait()
        warm = await self._pop_alive(key)
        if refill:
            self.expect(key)
        if warm is None:
            return None
        executor = warm.executor
        try:
            os.rename(warm.slot, folder)  # the sandbox's bind of the slot follows the folder
            executor.cwd = folder
            await asyncio.to_thread(copy, folder)
        except BaseException:
            await executor.shutdown()
            raise
        return executor

    async def _pop_alive(self, key: PoolKey) -> _Warm | None:
        """The first waiting kernel of ``key`` still alive (a dead one is discarded), marked handed out."""
        ws = self.ready.get(key, [])
        while ws:
            warm = ws.pop(0)
            km = warm.executor.km
            name = km.connection_file if km is not None else ""
            if km is not None and await km.is_alive() and name not in self.handed:
                self.handed.add(name)
                return warm
            asyncio.ensure_future(_discard(warm))
        return None

    def waiting(self) -> int:
        """How many kernels are ready to be taken."""
        return sum(len(ws) for ws in self.ready.values())

    async def close(self) -> None:
        """Shut every waiting kernel down (and stop filling); their slots are removed."""
        self._closed = True
        if self._filler is not None:
            self._filler.cancel()
            try:
                await self._filler
            except (asyncio.CancelledError, Exception):
                pass
        warms = [w for ws in self.ready.values() for w in ws]
        self.ready.clear()
        await asyncio.gather(*(_discard(w) for w in warms))


async def _discard(warm: _Warm) -> None:
    await warm.executor.shutdown()
    shutil.rmtree(warm.slot, ignore_errors=True)
