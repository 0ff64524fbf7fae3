"""The kernel provisioner of the `cibench-lab` kernelspec: every task kernel starts sandboxed.

jupyter_client (headless runs, ``tasks verify``/``build``) and jupyter_server (the
lab) both start a kernelspec's kernels through the provisioner its kernel.json
names, so this is the one place a task kernel is set up.  With the sandbox on
(:func:`.sandbox.current`), the kernel talks over ZMQ ``ipc`` sockets in a
private per-kernel folder (the sandbox has no network the server could reach it
through, and the shared runtime folder holds every kernel's key): that folder
holds its connection file and sockets and is the only server folder bound into
the sandbox besides the attempt.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from jupyter_client.provisioning import LocalProvisioner
from traitlets import Unicode

from .launch import ATTEMPTS_FLAG, LIMITS_FLAG, NETWORK_FLAG, SANDBOX_FLAG
from .sandbox import SandboxSetting, current
from .spec import LAUNCHER, PROVISIONER


class SandboxProvisioner(LocalProvisioner):
    """A local kernel process, in bubblewrap unless the sandbox is off."""

    attempts_root = Unicode(
        "",
        help="The lab's attempts folder: a kernel started outside it sees an empty attempt folder.",
    ).tag(config=True)
    folder: Path | None = None
    setting: SandboxSetting | None = None

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        self.setting = current()
        if self.setting.enabled and self.parent is not None:
            self._use_ipc(self.parent)
        kwargs = await super().pre_launch(**kwargs)
        if self.setting.enabled:
            kwargs["cmd"] = with_flags(kwargs["cmd"], self.setting, self.attempts_root)
        return kwargs

    def _use_ipc(self, km: Any) -> None:
        """Sockets and connection file in this kernel's own folder (kept across restarts)."""
        if self.folder is None:  # a unix socket's path has at most 107 bytes
            base = tempfile.gettempdir() if len(tempfile.gettempdir()) < 64 else "/tmp"
            self.folder = Path(tempfile.mkdtemp(prefix="cibench-k-", dir=base))
        km.transport = "ipc"
        km.cache_ports = False
        km.ip = str(self.folder / "ipc")
        if Path(km.connection_file).parent != self.folder:
            km.connection_file = str(self.folder / "kernel.json")

    async def cleanup(self, restart: bool = False) -> None:
        await super().cleanup(restart=restart)
        if not restart and self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def with_flags(cmd: list[str], setting: SandboxSetting, attempts_root: str = "") -> list[str]:
    """The launcher's command with the sandbox flags before its ipykernel arguments."""
    if LAUNCHER not in cmd:
        raise RuntimeError(f"the kernel command does not run {LAUNCHER}, so it cannot be sandboxed: {cmd}")
    at = cmd.index(LAUNCHER) + 1
    flags = [SANDBOX_FLAG, *([NETWORK_FLAG] if setting.network else [])]
    flags += [ATTEMPTS_FLAG, attempts_root] if attempts_root else []
    flags += [LIMITS_FLAG, setting.limits.flag()]
    return [*cmd[:at], *flags, *cmd[at:]]


def register() -> None:
    """Make the provisioner known to this process's jupyter_client even when the installed
    entry points predate it (an editable install not reinstalled since)."""
    from importlib.metadata import EntryPoint

    from jupyter_client.provisioning.factory import KernelProvisionerFactory

    value = f"{__name__}:{SandboxProvisioner.__name__}"
    entry = EntryPoint(PROVISIONER, value, KernelProvisionerFactory.GROUP_NAME)
    KernelProvisionerFactory.provisioners.setdefault(PROVISIONER, entry)
