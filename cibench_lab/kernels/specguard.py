"""The `cibench-lab` kernelspec is checked when the server starts and before each of its kernels starts.

A kernelspec is a file: one rewritten without the sandbox's provisioner (through a link, by an
unsandboxed kernel, by hand, or shadowed by a `cibench-lab` kernelspec in a folder Jupyter searches
first) would start the next attempt's kernel unsandboxed, able to reach the results database and
change its own grade. With the sandbox on, the server refuses to start (:func:`kernelspec_problem` at
start) and to start such a kernel (:class:`CheckedKernelManager`), with one line naming the file.
"""

from __future__ import annotations

import os
from typing import Any

from jupyter_client.kernelspec import NoSuchKernel
from jupyter_server.services.kernels.kernelmanager import ServerKernelManager
from tornado import web

from .sandbox import current
from .spec import KERNEL_NAME, PROVISIONER


def kernelspec_problem(kernel_spec_manager: Any) -> str | None:
    """Why the `cibench-lab` kernelspec the manager finds cannot start a sandboxed kernel, if it
    cannot (None with the sandbox off: then no kernel is sandboxed)."""
    if not current().enabled:
        return None
    try:
        spec = kernel_spec_manager.get_kernel_spec(KERNEL_NAME)
    except (NoSuchKernel, OSError, ValueError) as err:
        return f"the {KERNEL_NAME} kernelspec cannot be read: {err}"
    named = (spec.metadata or {}).get("kernel_provisioner", {}).get("provisioner_name")
    if named == PROVISIONER:
        return None
    where = os.path.join(spec.resource_dir, "kernel.json")
    return f"{where}: names no sandbox provisioner ({PROVISIONER}); its kernels are not started"


class SpecRefused(web.HTTPError, NoSuchKernel):
    """403 for ``POST /api/kernels``; for ``POST /api/sessions``, which answers every other error with
    a 500, a kernel that is not available (501)."""

    def __init__(self, problem: str):
        web.HTTPError.__init__(self, 403, problem)
        self.name = KERNEL_NAME


class CheckedKernelManager(ServerKernelManager):
    """The server's kernel manager of one kernel: a `cibench-lab` kernel starts only from a kernelspec
    that names the sandbox's provisioner, read again before each start."""

    async def _async_pre_start_kernel(self, **kw: Any) -> Any:
        if self.kernel_name == KERNEL_NAME:
            problem = kernelspec_problem(self.kernel_spec_manager)
            if problem:
                self.log.critical("cibench-lab: %s", problem)
                raise SpecRefused(problem)
            self._kernel_spec = None  # the provisioner is made from the spec just checked
        return await super()._async_pre_start_kernel(**kw)


def apply_specguard(serverapp: Any) -> None:
    """The server's kernels start through :class:`CheckedKernelManager` (before its managers are built)."""
    name = f"{CheckedKernelManager.__module__}.{CheckedKernelManager.__name__}"
    serverapp.config.MappingKernelManager.kernel_manager_class = name
