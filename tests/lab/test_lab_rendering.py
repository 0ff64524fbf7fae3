"""The lab gives every attempt kernel its task's rendering: at start and after a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PROBE_ID, write_probe_task

from cibench_lab.kernels.executor import execute
from cibench_lab.tasks import sidecar
from cibench_lab.tasks.rendering import Rendering, TaskRendering

PROBE_RC = (
    "import matplotlib as m\n"
    "rc = m.rcParams\n"
    "print(rc['figure.dpi'], tuple(rc['figure.figsize']), m.colors.to_rgba(rc['figure.facecolor']))"
)


@pytest.fixture
def task_root(tmp_path_factory) -> Path:
    """The probe task, its rendering recorded in the task dir's sidecar as the old inline backend's."""
    root = tmp_path_factory.mktemp("tasks")
    write_probe_task(root)
    sidecar.update(root, {PROBE_ID: TaskRendering(Rendering.of("legacy-inline"), "sidecar", True)})
    return root


async def kernel_rc(serverapp, kernel_id: str) -> str:
    kernel = serverapp.kernel_manager.get_kernel(kernel_id)
    kc = kernel.client()
    kc.start_channels()
    try:
        await kc.wait_for_ready(timeout=30)
        ex = await execute(kc, kernel, PROBE_RC, 30)
    finally:
        kc.stop_channels()
    return "".join(o.get("text", "") for o in ex.outputs if o.get("output_type") == "stream")


LEGACY = "72.0 (6.0, 4.0) (1.0, 1.0, 1.0, 0.0)\n"


async def test_attempt_kernels_render_as_their_task_also_after_a_restart(start_attempt, api, jp_serverapp):
    b = await start_attempt()
    assert await kernel_rc(jp_serverapp, b.kernel_id) == LEGACY
    await jp_serverapp.kernel_manager.restart_kernel(b.kernel_id)
    b.close()
    code, bound = await api("POST", f"attempts/{b.attempt['id']}/kernel", {"kernel_id": b.kernel_id})
    assert code == 200, bound
    assert await kernel_rc(jp_serverapp, b.kernel_id) == LEGACY
    builtin = await start_attempt("cibench_template/pandas/economics_unemployment")
    assert await kernel_rc(jp_serverapp, builtin.kernel_id) == "72.0 (6.4, 4.8) (1.0, 1.0, 1.0, 1.0)\n"
