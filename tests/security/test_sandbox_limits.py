"""A sandboxed kernel's limits: a fork bomb, a memory bomb, a /tmp fill and a huge file are each
bounded, end as one error in the cell, and leave the kernel and another kernel answering.

The kernels of this module start with small limits (64 processes, 4 GiB address space, 16 MiB of
/tmp, 8 MiB files): each bomb is bounded in size, so it fails without them too, quickly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from cibench_lab.kernels.executor import KernelExecutor

LIMITS_VAR = "CIBENCH_LAB_KERNEL_LIMITS"  # kernels.limits.LIMITS_VAR, as sandbox.configure sets it
LIMITS = "64,4096,16,8"  # KernelLimits(processes=64, memory_mb=4096, tmp_mb=16, file_mb=8).flag()
BOMBS = {
    # sleeping children (no CPU burnt): the 65th fork fails
    "fork bomb": (
        "import os, time\nkids = []\ntry:\n    for _ in range(200):\n        pid = os.fork()\n"
        "        if pid == 0:\n            time.sleep(30); os._exit(0)\n        kids.append(pid)\n"
        "finally:\n    [os.kill(k, 9) for k in kids]; [os.waitpid(k, 0) for k in kids]",
        "BlockingIOError",
    ),
    # 6 GiB asked at once, never touched
    "memory bomb": ("import numpy\nx = numpy.empty(6 * 2**30, dtype=numpy.uint8)", "MemoryError"),
    "/tmp fill": ("open('/tmp/fill', 'wb').write(b'x' * 32 * 2**20)", "OSError"),
    "/dev/shm fill": ("open('/dev/shm/fill', 'wb').write(b'x' * 32 * 2**20)", "OSError"),
    "huge file": ("open('huge.bin', 'wb').write(b'x' * 32 * 2**20)", "OSError"),
}


@pytest.fixture(scope="module")
def kernels(tmp_path_factory) -> Iterator[tuple[asyncio.AbstractEventLoop, KernelExecutor, KernelExecutor]]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(LIMITS_VAR, LIMITS)
        loop = asyncio.new_event_loop()
        bombed = KernelExecutor(tmp_path_factory.mktemp("bombed"), timeout=120)
        bystander = KernelExecutor(tmp_path_factory.mktemp("bystander"), timeout=60)
        loop.run_until_complete(_both(bombed.start(), bystander.start()))
    yield loop, bombed, bystander
    loop.run_until_complete(_both(bombed.shutdown(), bystander.shutdown()))
    loop.close()


async def _both(*calls) -> None:
    await asyncio.gather(*calls)


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_a_bomb_is_bounded_and_ends_as_one_error(kernels, bomb):
    loop, bombed, bystander = kernels
    code, expected = BOMBS[bomb]
    ex = loop.run_until_complete(bombed.run(code))
    errors = [o for o in ex.outputs if o["output_type"] == "error"]
    assert ex.error and len(errors) == 1, ex.outputs
    assert errors[0]["ename"] == expected, errors[0]["evalue"]
    for kernel in (bombed, bystander):  # both still answer
        after = loop.run_until_complete(kernel.run("print(6 * 7)"))
        assert not after.error and after.outputs[0]["text"] == "42\n", after.outputs


def test_a_kernel_still_imports_and_uses_its_libraries_within_the_limits(kernels):
    loop, bombed, _ = kernels
    code = "import numpy, pandas\nprint(pandas.DataFrame({'a': numpy.arange(10**6)}).a.sum())"
    ex = loop.run_until_complete(bombed.run(code))
    assert not ex.error and ex.outputs[0]["text"] == f"{sum(range(10**6))}\n", ex.outputs
