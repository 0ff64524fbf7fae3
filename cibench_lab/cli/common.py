"""What every `cibench-lab` subcommand shares."""

from __future__ import annotations

import argparse
import sys

from ..kernels.limits import KernelLimits
from ..store import configured_url
from ..tasks.library import TaskLibrary, default_task_dirs


def steps_text(n: int) -> str:
    """``1 step``, ``3 steps``."""
    return f"{n} step{'' if n == 1 else 's'}"


def database_url(args: argparse.Namespace) -> str | None:
    """The results database of every command, picked as the server picks it: the command's own
    ``--database-url``, else the global ``--db``, else ``CIBENCH_LAB_DATABASE_URL``, else None
    (SQLite in the Jupyter data dir)."""
    return configured_url(getattr(args, "database_url", None) or args.db)


def library(args: argparse.Namespace) -> TaskLibrary:
    """The task library the global ``--task-dir`` options name (default: built-in + imported)."""
    lib = TaskLibrary.load(args.task_dir or default_task_dirs())
    for problem in lib.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    return lib


def start_sandbox(args: argparse.Namespace) -> bool:
    """Check the kernel Python (``CIBENCH_LAB_KERNEL_PYTHON``) and configure the kernel sandbox
    from ``--no-sandbox``/``--allow-network``; False (and one line on stderr) when either cannot
    start."""
    from ..kernels.interpreter import check_kernel_python, kernel_python, kernel_python_note
    from ..kernels.kernelenv import kernel_unpinned
    from ..kernels.limits import process_limit_problem
    from ..kernels.sandbox import SandboxSetting, configure, prepare

    problem = check_kernel_python()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return False
    unpinned = kernel_unpinned()  # one line: the lock's packages this kernel Python lacks
    if unpinned:
        print(f"warning: {unpinned}", file=sys.stderr)
    elif kernel_python() == sys.executable:
        print(f"warning: {kernel_python_note(sys.executable)}", file=sys.stderr)
    setting = SandboxSetting(
        enabled=not getattr(args, "no_sandbox", False),
        network=getattr(args, "allow_network", False),
        limits=kernel_limits(args),
    )
    problem = prepare() if setting.enabled else None
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return False
    configure(setting)
    problem = process_limit_problem(setting.limits) if setting.enabled else None
    if problem:
        print(f"warning: {problem}", file=sys.stderr)
    if not setting.enabled:
        print("warning: task kernels are NOT sandboxed (--no-sandbox)", file=sys.stderr)
    return True


def kernel_limits(args: argparse.Namespace) -> KernelLimits:
    """The limits ``--kernel-max-processes`` … name (the defaults where a command has none)."""
    return KernelLimits(*(int(getattr(args, f"kernel_{name}", default)) for name, default in _LIMITS))


#: The kernel limits' option names (``--kernel-max-processes`` …) and defaults, in KernelLimits' order.
_LIMITS = tuple(
    zip(("max_processes", "memory_mb", "tmp_mb", "file_mb"), KernelLimits().flag().split(","), strict=True)
)


def add_sandbox_options(parser: argparse.ArgumentParser, network: bool = True) -> None:
    g = parser.add_argument_group("kernel sandbox (bubblewrap; on by default)")
    g.add_argument("--no-sandbox", action="store_true", help="run task kernels unsandboxed (recorded)")
    if network:
        g.add_argument("--allow-network", action="store_true", help="let sandboxed kernels reach the network")
    helps = {
        "max_processes": "processes and threads per kernel",
        "memory_mb": "address space per kernel process, MiB",
        "tmp_mb": "size of the kernel's /tmp, /dev/shm and HOME, MiB each",
        "file_mb": "largest file a kernel writes, MiB",
    }
    for name, default in _LIMITS:
        flag = "--kernel-" + name.replace("_", "-")
        helped = f"{helps[name]} (0: none; {default})"
        g.add_argument(flag, type=int, default=int(default), metavar="N", help=helped)
