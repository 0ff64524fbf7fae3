"""Start a task kernel without the server's secrets in its environment, sandboxed.

Kernels inherit the environment of the process that starts them, and a task kernel
runs whatever a person or a model writes — so an API key the server holds for a
model or a judge would be one ``os.environ`` away.  The ``cibench-lab`` kernelspec
runs this module, which drops every secret-looking variable (and the ones the
server names in ``CIBENCH_LAB_HIDE_ENV``) and then execs ipykernel with what is
left (``execve``: even ``/proc/self/environ`` of the kernel never held them).

With ``--sandbox`` (the kernel provisioner passes it unless the sandbox is off)
this runs outside the sandbox and runs bubblewrap instead, with an environment
of the kernelspec's variables only (bubblewrap is the sandbox's PID 1, whose
``/proc/1/environ`` the kernel can read); ``--network`` keeps the network;
``--attempts-root DIR`` (the lab's attempts folder) leaves a kernel started
anywhere else with an empty attempt folder.

The launcher runs with the server's Python (it needs ``cibench_lab``); the kernel
runs ``--kernel-python PATH`` (the kernelspec names the kernel environment's
interpreter: :mod:`.interpreter`), which has no ``cibench_lab``.  A kernel of
another Python than the launcher's gets none of the server's ``PYTHONPATH``,
``PYTHONHOME`` or ``VIRTUAL_ENV``: they are the server's environment's, not its own.

A sandboxed kernel dies with the process that started it (the server, ``run``, a
test), however that one ends (SIGKILL too), and never because the *thread* that
started it ended: the launcher stays as bubblewrap's parent (:func:`supervise`).
bubblewrap's ``--die-with-parent`` ties the sandbox to bubblewrap and bubblewrap to
its parent *thread* (``PR_SET_PDEATHSIG``), set only once bubblewrap runs: exec'd
straight from the server, a sandbox whose starter died in the first moments of the
launch lived on forever, and one started from a worker thread died with that thread.
"""

from __future__ import annotations

import os
import select
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from ..models.redact import HIDE_VAR, hidden_names, is_secret_name
from .limits import KernelLimits, enter_cgroup, process_cgroup, remove_cgroup

SANDBOX_FLAG = "--sandbox"
NETWORK_FLAG = "--network"
ATTEMPTS_FLAG = "--attempts-root"  # its value: only a folder inside it is the kernel's attempt
PYTHON_FLAG = "--kernel-python"  # its value: the interpreter that runs ipykernel (default: this one)
LIMITS_FLAG = "--limits"  # its value: KernelLimits.flag() (default: the defaults)
SERVER_PYTHON_VARS = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")


def kernel_env(environ: dict[str, str]) -> dict[str, str]:
    """``environ`` without secrets: names that look like one, and those listed in HIDE_VAR."""
    listed = hidden_names(environ)
    return {k: v for k, v in environ.items() if k not in listed and k != HIDE_VAR and not is_secret_name(k)}


def _take(args: list[str], flag: str) -> tuple[str, list[str]]:
    """The value of ``flag VALUE`` in ``args`` ("" when absent) and ``args`` without both."""
    if flag not in args:
        return "", args
    at = args.index(flag)
    return args[at + 1], args[:at] + args[at + 2 :]


def sandboxed_command(
    args: list[str], environ: dict[str, str], python: str = "", limits: KernelLimits | None = None
) -> tuple[list[str], dict[str, str]]:
    """bwrap's argv and environment for a kernel with ipykernel arguments ``args`` (``-f FILE``)."""
    from .interpreter import describe
    from .sandbox import attempt_folder, bwrap_argv, kernel_policy, sandbox_env
    from .seccomp import filter_fd
    from .spec import KERNEL_ENV

    network = NETWORK_FLAG in args
    args = [a for a in args if a != NETWORK_FLAG]
    root, args = _take(args, ATTEMPTS_FLAG)
    connection = Path(args[args.index("-f") + 1])
    attempt = attempt_folder(Path.cwd(), root)
    interpreter = describe(python or sys.executable)
    policy = kernel_policy(attempt, connection.parent, network, interpreter)
    policy = replace(policy, limits=limits or KernelLimits(), seccomp_fd=filter_fd())
    # its parent is bubblewrap's init, PID 1: no parent poller (it would exit at once), no
    # "Ctrl-C will not work" banner; it dies with the sandbox instead (--die-with-parent)
    kernel = [interpreter.executable, "-m", "ipykernel_launcher", "--IPKernelApp.parent_handle=1", *args]
    argv = bwrap_argv(policy, kernel)
    return argv, sandbox_env(kernel_env(environ), policy, KERNEL_ENV)


def unsandboxed_env(environ: dict[str, str], python: str) -> dict[str, str]:
    """An unsandboxed kernel's environment: no secrets; for another Python than this one, none of
    the server environment's Python variables, and that Python's ``bin`` first on ``PATH``; the
    sandbox's marker saying it is not sandboxed (``CIBENCH_LAB_SANDBOXED=0``: whatever the server's
    environment held)."""
    from .sandbox import MARKER_VAR

    env = {**kernel_env(environ), MARKER_VAR: "0"}
    if os.path.abspath(python) != os.path.abspath(sys.executable):
        env = {k: v for k, v in env.items() if k not in SERVER_PYTHON_VARS}
        env["PATH"] = os.pathsep.join(p for p in (os.path.dirname(python), env.get("PATH", "")) if p)
    return env


STARTER_VAR = "JPY_PARENT_PID"  # jupyter_client names the process that starts the kernel
PR_SET_PDEATHSIG = 1
POLL_MS = 1000  # without pidfds (Linux < 5.3): how often the starter and the sandbox are looked at


class StarterGone(Exception):
    """The process that started this launcher is gone: nobody would ever stop the kernel."""


def _exited(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie counts: it is gone, just not reaped)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except (AttributeError, OSError):  # no pidfds here: a zombie counts as alive
        return not _exists(pid)
    try:
        return bool(select.select([fd], [], [], 0)[0])
    finally:
        os.close(fd)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch_starter(environ: dict[str, str]) -> tuple[int, int | None]:
    """The starter's PID and a pidfd that becomes readable when it exits (None without pidfds).

    Raises :class:`StarterGone` when it died before this launcher looked: it was reparented
    (to PID 1, or to the process ``JPY_PARENT_PID`` does not name, and that one has exited).
    """
    starter = os.getppid()
    named = environ.get(STARTER_VAR, "")
    if starter == 1 or (named.isdigit() and int(named) != starter and _exited(int(named))):
        raise StarterGone
    try:
        fd: int | None = os.pidfd_open(starter)
    except (AttributeError, OSError):
        fd = None
    if os.getppid() != starter:  # it died while we opened it (the PID may be another's now)
        raise StarterGone
    return starter, fd


def _die_with_parent(parent: int) -> None:
    """In the child, before exec: SIGKILL when ``parent`` (single-threaded) ends, checked after
    setting it so a parent that died just before is noticed (bubblewrap sets it again itself)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != parent:
        os._exit(1)


def supervise(
    argv: list[str], env: dict[str, str], watched: tuple[int, int | None], limits: KernelLimits
) -> NoReturn:
    """Run ``argv`` (bubblewrap) as a child and stay its parent until it ends (then end as it
    did: jupyter_client sees the kernel's exit status) or the starter does (then kill it).

    The launcher is single-threaded, so the child's parent-death signal fires only when the
    launcher ends (a signal jupyter_client sends, SIGKILL included); the starter is watched as a
    process (its pidfd, else its PID as our parent), so a thread of it that ends changes nothing.
    The child runs under ``limits`` (:mod:`.limits`: its rlimits, its own pids cgroup as root).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # interrupts go by message; a SIGINT ends it
    me = os.getpid()
    cgroup = process_cgroup(limits.processes)
    child = os.fork()
    if child == 0:
        _die_with_parent(me)
        try:
            if cgroup is not None:
                enter_cgroup(cgroup)
            limits.apply()
            os.execve(argv[0], argv, env)
        except OSError as err:
            print(f"cibench-lab: cannot run {argv[0]}: {err}", file=sys.stderr)
            os._exit(127)
    status = _wait(child, *watched)
    if status is None:  # the starter is gone
        os.kill(child, signal.SIGKILL)  # not reaped yet: the PID is still the sandbox's
        os.waitpid(child, 0)
    remove_cgroup(cgroup)
    if status is None:
        os._exit(1)
    _exit_as(status)


def _wait(child: int, starter: int, starter_fd: int | None) -> int | None:
    """The child's wait status once it ends; None when the starter ends first."""
    try:
        child_fd: int | None = os.pidfd_open(child)
    except (AttributeError, OSError):
        child_fd = None
    poller = select.poll()
    for fd in (starter_fd, child_fd):
        if fd is not None:
            poller.register(fd, select.POLLIN)
    timeout = None if starter_fd is not None and child_fd is not None else POLL_MS
    while True:
        ready = {fd for fd, _ in poller.poll(timeout)}
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid == child:
            return status
        if starter_fd in ready or os.getppid() != starter:
            return None


def _exit_as(status: int) -> NoReturn:
    """End this process the way the child ended (its exit code, or the signal that killed it)."""
    if not os.WIFSIGNALED(status):
        os._exit(os.waitstatus_to_exitcode(status))
    sig = os.WTERMSIG(status)
    if sig != signal.SIGKILL:
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)  # a signal whose default is not to end a process


def main() -> None:
    python, args = _take(sys.argv[1:], PYTHON_FLAG)
    python = python or sys.executable
    if SANDBOX_FLAG in args:
        try:
            starter, starter_fd = watch_starter(dict(os.environ))
        except StarterGone:
            sys.exit("cibench-lab: the process that started this kernel is gone; not starting it")
        flag, args = _take([a for a in args if a != SANDBOX_FLAG], LIMITS_FLAG)
        limits = KernelLimits.parse(flag)
        argv, env = sandboxed_command(args, dict(os.environ), python, limits)
        supervise(argv, env, (starter, starter_fd), limits)
    argv = [python, "-m", "ipykernel_launcher", *args]
    os.execve(python, argv, unsandboxed_env(dict(os.environ), python))


if __name__ == "__main__":
    main()
