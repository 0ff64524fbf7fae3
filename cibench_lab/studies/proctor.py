"""The proctored preset (``CIBenchLabApp.proctored``): for studies and exams.

Applied when the extension is linked, before the server builds its kernel and
kernelspec managers: Jupyter terminals are off, and only the sandboxed
`cibench-lab` kernelspec can be started (any other name is refused as unknown),
so a participant's session has no way to run code outside the sandbox — and
with it no way to the admin command line, the task files or the database.
"""

from __future__ import annotations

from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web

from ..kernels.spec import KERNEL_NAME

REFUSED = f"only the sandboxed {KERNEL_NAME} kernel can be started on this server (proctored)"


class ProctoredKernelSpecManager(KernelSpecManager):
    """Lists and starts the `cibench-lab` kernelspec only."""

    def find_kernel_specs(self) -> dict[str, str]:
        return {k: v for k, v in super().find_kernel_specs().items() if k == KERNEL_NAME}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        if kernel_name.lower() != KERNEL_NAME:
            raise NoSuchKernel(kernel_name)
        return super().get_kernel_spec(kernel_name)


class Refused(web.HTTPError, NoSuchKernel):
    """403 for `POST /api/kernels`; a missing kernel (501) for `POST /api/sessions`, which
    answers every other error with a 500."""

    def __init__(self, kernel_name: str):
        web.HTTPError.__init__(self, 403, f"{kernel_name}: {REFUSED}")
        self.name = kernel_name


class ProctoredKernels:
    """Mixed into the server's kernel manager: a new kernel of any other kernelspec is refused
    (403) before anything is registered for it."""

    async def start_kernel(self, *args: Any, **kwargs: Any) -> str:
        kernel_id = kwargs.get("kernel_id")
        name = str(kwargs.get("kernel_name") or getattr(self, "default_kernel_name", ""))
        if (kernel_id is None or kernel_id not in self) and name != KERNEL_NAME:  # type: ignore[operator]
            raise Refused(name)
        return await super().start_kernel(*args, **kwargs)  # type: ignore[misc]


def apply_preset(serverapp: Any) -> None:
    """Terminals off, the `cibench-lab` kernelspec only (and the default)."""
    serverapp.terminals_enabled = False
    serverapp.kernel_spec_manager_class = ProctoredKernelSpecManager
    # the default needs the gateway config, which is built after this: read only a configured class
    base = serverapp.kernel_manager_class if serverapp.trait_has_value("kernel_manager_class") else None
    base = base or AsyncMappingKernelManager
    if not issubclass(base, ProctoredKernels):
        serverapp.kernel_manager_class = type(f"Proctored{base.__name__}", (ProctoredKernels, base), {})
    serverapp.config.MappingKernelManager.default_kernel_name = KERNEL_NAME
