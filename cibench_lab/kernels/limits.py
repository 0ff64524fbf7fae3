"""A sandboxed kernel's resource limits: processes, memory, the private ``/tmp``, file size.

:class:`KernelLimits` is the server's (``CIBenchLabApp.kernel_*`` traits) or ``run``'s choice.
The kernel launcher applies it to bubblewrap, and so to the kernel and everything it starts:

* processes (threads count): ``RLIMIT_NPROC``, counted per user namespace, so per sandbox; a
  process whose user is root is exempt from it, so when the server runs as root the kernel's
  sandbox is also put in a ``pids`` cgroup of its own (``pids.max``) where one is writable
  (:func:`process_cgroup`); without one :func:`process_limit_problem` says so at start;
* memory: ``RLIMIT_AS`` (address space, per process: an allocation past it raises MemoryError);
* the private ``/tmp``, ``/dev/shm`` and ``HOME``: tmpfs of that size each (``bwrap --size``;
  a write past it fails with ENOSPC);
* file size: ``RLIMIT_FSIZE`` (a write past it fails with EFBIG).

0 means no limit of that kind.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

LIMITS_VAR = "CIBENCH_LAB_KERNEL_LIMITS"
MB = 1024 * 1024
CGROUP_NAME = "cibench-k-"  # + the launcher's PID
CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))  # cgroup v1's pids, v2


@dataclass(frozen=True)
class KernelLimits:
    """What one sandboxed kernel may use (0: no limit)."""

    processes: int = 512
    memory_mb: int = 16384
    tmp_mb: int = 1024
    file_mb: int = 2048

    def flag(self) -> str:
        """As the launcher's ``--limits`` value (and LIMITS_VAR)."""
        return f"{self.processes},{self.memory_mb},{self.tmp_mb},{self.file_mb}"

    @classmethod
    def parse(cls, text: str) -> KernelLimits:
        """From :meth:`flag`'s text (empty: the defaults)."""
        if not text:
            return cls()
        processes, memory, tmp, file = (int(v) for v in text.split(","))
        return cls(processes, memory, tmp, file)

    def tmpfs_size(self) -> list[str]:
        """bwrap's option for the size of the next ``--tmpfs`` ([] without a limit)."""
        return ["--size", str(self.tmp_mb * MB)] if self.tmp_mb > 0 else []

    def apply(self) -> None:
        """In the launcher's child, before it runs bubblewrap: the rlimits (inherited)."""
        for kind, value in (
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_AS, self.memory_mb * MB),
            (resource.RLIMIT_FSIZE, self.file_mb * MB),
        ):
            if value > 0:
                resource.setrlimit(kind, (value, value))


def _own_cgroup(root: Path) -> Path | None:
    """This process's cgroup under ``root`` (v1 pids hierarchy or v2), if that is writable."""
    v2 = root == Path("/sys/fs/cgroup")
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (v2 and controllers == "") or (not v2 and "pids" in controllers.split(",")):
            here = root / path.lstrip("/")
            return here if (here / "cgroup.procs").is_file() and os.access(here, os.W_OK) else None
    return None


def process_cgroup(processes: int) -> Path | None:
    """A new ``pids`` cgroup for one sandbox (root only: others get RLIMIT_NPROC), or None."""
    if os.geteuid() != 0 or processes <= 0:
        return None
    for root in CGROUP_ROOTS:
        parent = _own_cgroup(root)
        if parent is None:
            continue
        _sweep(parent)
        folder = parent / f"{CGROUP_NAME}{os.getpid()}"
        try:
            folder.mkdir(exist_ok=True)
            (folder / "pids.max").write_text(str(processes))
            return folder
        except OSError:
            remove_cgroup(folder)
    return None


def enter_cgroup(folder: Path) -> None:
    """Move the calling process (the launcher's child) into ``folder``."""
    (folder / "cgroup.procs").write_text(str(os.getpid()))


def remove_cgroup(folder: Path | None) -> None:
    if folder is not None:
        try:
            folder.rmdir()
        except OSError:
            pass


def _sweep(parent: Path) -> None:
    """Remove the cgroups of launchers that died (SIGKILL) before they removed their own."""
    for folder in parent.glob(f"{CGROUP_NAME}*"):
        pid = folder.name.removeprefix(CGROUP_NAME)
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            remove_cgroup(folder)


def process_limit_problem(limits: KernelLimits) -> str | None:
    """One line when the process limit cannot hold here (root without a writable pids cgroup)."""
    if os.geteuid() != 0 or limits.processes <= 0:
        return None
    folder = process_cgroup(limits.processes)
    if folder is not None:
        remove_cgroup(folder)
        return None
    return (
        "the kernels' process limit is not enforced: the server runs as root, which RLIMIT_NPROC "
        "exempts, and no pids cgroup is writable here"
    )
