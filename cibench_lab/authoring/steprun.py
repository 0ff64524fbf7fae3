"""One way to run a task's reference code: :func:`run_steps`, shared by ``build``, ``verify`` and ``new``.

Each run starts a fresh ``cibench-lab`` kernel through the engine's headless executor
(:class:`~cibench_lab.kernels.executor.KernelExecutor`) in a folder the caller filled with the
task's data — sandboxed or not as this process's kernels are (:func:`..kernels.sandbox.current`,
``--no-sandbox``) — runs the hidden start code with the task's rendering, then each step's code
in order, and gives back each step's :class:`~cibench_lab.kernels.execution.Execution` and
seconds: exactly what a player's turn records of the same code.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..kernels.execution import Execution
from ..tasks.rendering import STOCK_72, Rendering

if TYPE_CHECKING:
    from ..kernels.executor import KernelExecutor


@dataclass(frozen=True)
class RunSettings:
    """How the steps run: seconds per step, the rendering, whether to stop at the first step
    that fails (raises, times out, kills the kernel), and the kernelspec folder to look in only
    (``None``: wherever jupyter_client finds the ``cibench-lab`` spec)."""

    timeout: float = 120.0
    rendering: Rendering = STOCK_72
    stop_at_failure: bool = True
    spec_dir: Path | None = None
    prelude: str = ""  # code run on the kernel before the first step (the verify bench's BLAS check)


@dataclass
class StepRun:
    execution: Execution
    seconds: float

    @property
    def failed(self) -> bool:
        return self.execution.error or self.execution.status != "ok"


@dataclass
class StepRuns:
    """The steps run (all of them, or up to the first that failed when stopping there)."""

    steps: list[StepRun] = field(default_factory=list)
    language_info: dict | None = None  # the kernel's, from its kernel_info reply
    peak_rss: int | None = None  # bytes, the kernel's high-water mark after the last step
    error: str | None = None  # the kernel would not start, its start code failed or its channel died


class StartCodeError(RuntimeError):
    """The kernel's hidden start code did not run cleanly."""


async def run_steps(codes: list[str], folder: Path, settings: RunSettings = RunSettings()) -> StepRuns:
    """Run ``codes`` one step at a time in one fresh kernel started in ``folder``."""
    from ..kernels.executor import KernelExecutor

    runs = StepRuns()
    executor = KernelExecutor(
        folder, timeout=settings.timeout, rendering=settings.rendering, prelude=settings.prelude
    )
    executor.spec_dir = settings.spec_dir
    try:
        started = await executor.start()
        if started.error or started.status != "ok":
            raise StartCodeError("the kernel start code failed")
        runs.language_info = (executor.kernel_info or {}).get("language_info")
        for code in codes:
            began = time.perf_counter()
            runs.steps.append(StepRun(await executor.run(code), time.perf_counter() - began))
            if settings.stop_at_failure and runs.steps[-1].failed:
                break
        runs.peak_rss = peak_rss(executor)
    except Exception as err:  # a kernel that would not start, a dead channel, ...
        runs.error = f"{type(err).__name__}: {err}"
    finally:
        await executor.shutdown()
    return runs


def peak_rss(executor: KernelExecutor) -> int | None:
    """The kernel's peak resident memory (Linux /proc), in bytes: the largest of its process
    tree's (a sandboxed kernel is a child of bubblewrap's)."""
    pid = executor.pid()
    if pid is None:
        return None
    peaks = [_vm_hwm(p) for p in _tree(pid)]
    return max((p for p in peaks if p is not None), default=None)


def _tree(pid: int) -> list[int]:
    pids, i = [pid], 0
    while i < len(pids):
        try:
            children = Path(f"/proc/{pids[i]}/task/{pids[i]}/children").read_text().split()
        except OSError:
            children = []
        pids += [int(c) for c in children]
        i += 1
    return pids


def _vm_hwm(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
