"""A sandboxed kernel lives exactly as long as the process that started it (real kernels, real bubblewrap).

Every process of a kernel names its private connection folder in its command line (the launcher and
the kernel by ``-f``, bubblewrap by ``--bind``): that folder is how a test finds them all.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import AsyncKernelManager

from cibench_lab.kernels import sandbox
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.kernels.spec import KERNEL_NAME, ensure_kernelspec

HERE = Path(__file__).parent.parent
BOUND = 60.0  # seconds a condition may take before the test gives up on it

#: Starts a sandboxed kernel as jupyter_client does (through the kernelspec's provisioner), prints its
#: connection file, then (``ready``) waits for it to answer and sleeps; else it is killed at once.
STARTER = """
import asyncio, sys, time
from jupyter_client.manager import AsyncKernelManager
from cibench_lab.kernels.spec import KERNEL_NAME, ensure_kernelspec

async def start(cwd, ready):
    ensure_kernelspec()
    km = AsyncKernelManager(kernel_name=KERNEL_NAME)
    await km.start_kernel(cwd=cwd)
    if ready:
        kc = km.client()
        kc.start_channels()
        await kc.wait_for_ready(timeout=60)
    print(km.connection_file, flush=True)
    time.sleep(600)

asyncio.run(start(sys.argv[1], sys.argv[2] == "ready"))
"""


@pytest.fixture(autouse=True)
def _sandboxed(monkeypatch):
    monkeypatch.setenv(sandbox.ENABLED_VAR, "1")
    monkeypatch.setenv(sandbox.NETWORK_VAR, "0")


def processes_naming(marker: str) -> dict[int, str]:
    """PID -> command line of every process whose command line holds ``marker``."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if entry.name.isdigit() and marker.encode() in cmdline:
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace")
    return found


def wait_until(condition: Callable[[], bool], bound: float = BOUND) -> bool:
    deadline = time.monotonic() + bound
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def end(marker: str) -> None:
    """Kill what is left of a kernel (a failed test must not leave one behind)."""
    for pid in processes_naming(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start_in_a_subprocess(tmp_path: Path, ready: bool) -> tuple[subprocess.Popen, str]:
    """A starter process and its kernel's connection folder (the marker of its processes)."""
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(tmp_path), "ready" if ready else "now"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE.parent)},
    )
    assert starter.stdout is not None
    line = starter.stdout.readline().strip()
    assert line.endswith("kernel.json"), (line, starter.poll())
    return starter, str(Path(line).parent)


@pytest.mark.parametrize("when", ["running", "starting"])
def test_a_kernel_dies_with_its_starter_killed_with_9(tmp_path, when):
    """``running``: the kernel answered; ``starting``: killed as soon as the kernel's process
    exists, while the launcher is still setting the sandbox up (that sandbox used to live on)."""
    starter, marker = start_in_a_subprocess(tmp_path, ready=when == "running")
    try:
        if when == "running":
            seen = processes_naming(marker).values()
            assert any("bwrap" in c for c in seen) and any("ipykernel_launcher" in c for c in seen), seen
        starter.kill()
        starter.wait(timeout=30)
        assert wait_until(lambda: not processes_naming(marker)), processes_naming(marker)
    finally:
        if starter.poll() is None:
            starter.kill()
        end(marker)


async def _start(folder: Path) -> AsyncKernelManager:
    ensure_kernelspec()
    km = AsyncKernelManager(kernel_name=KERNEL_NAME)
    await km.start_kernel(cwd=str(folder))
    kc = km.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=60)
    finally:
        kc.stop_channels()
    return km


def test_a_kernel_started_from_a_thread_outlives_the_thread(tmp_path):
    """jupyter_client starts a kernel in whichever thread asks; that thread ending is no reason
    for the kernel to die (bubblewrap's own --die-with-parent would follow the thread)."""
    started: dict = {}

    def start() -> None:
        started["thread"] = threading.get_native_id()
        started["km"] = asyncio.run(_start(tmp_path))

    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    km: AsyncKernelManager = started["km"]
    marker = str(Path(km.connection_file).parent)
    kc = BlockingKernelClient()
    try:
        assert wait_until(lambda: not Path(f"/proc/self/task/{started['thread']}").exists())
        kc.load_connection_file(km.connection_file)
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        texts: list[str] = []
        code = "import time; time.sleep(1); print('still here')"
        reply = kc.execute_interactive(
            code, timeout=60, output_hook=lambda m: texts.append(m["content"].get("text", ""))
        )
        assert reply["content"]["status"] == "ok" and "still here\n" in texts
        assert km.provisioner is not None and km.provisioner.process.poll() is None
    finally:
        kc.stop_channels()
        end(marker)


async def _exit_status(folder: Path) -> tuple[str, str]:
    executor = KernelExecutor(folder, timeout=60)
    await executor.start()
    try:
        marker = str(Path(executor.km.connection_file).parent)
        await executor.run("import os; os._exit(3)")
        assert executor.km is not None and executor.km.provisioner is not None
        provisioner = executor.km.provisioner
        deadline = time.monotonic() + BOUND
        while await provisioner.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        return marker, await executor.death_reason()
    finally:
        await executor.shutdown()


def test_the_kernels_exit_status_is_the_launchers_and_a_shutdown_leaves_nothing(tmp_path):
    marker, reason = asyncio.run(_exit_status(tmp_path))
    try:
        assert reason == "the kernel process exited (exit code 3)"
        assert wait_until(lambda: not processes_naming(marker)), processes_naming(marker)
    finally:
        end(marker)


pytestmark = pytest.mark.timeout(300)
