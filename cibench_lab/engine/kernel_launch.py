"""Start a task kernel without the server's secrets in its environment, sandboxed.

Kernels inherit the environment of the process that starts them, and a task kernel
runs whatever a person or a model writes — so an API key the server holds for a
model or a judge would be one ``os.environ`` away.  The ``cibench-lab`` kernelspec
runs this module, which drops every secret-looking variable (and the ones the
server names in ``CIBENCH_LAB_HIDE_ENV``) and then execs ipykernel with what is
left (``execve``: even ``/proc/self/environ`` of the kernel never held them).

With ``--sandbox`` (the kernel provisioner passes it unless the sandbox is off)
this runs outside the sandbox and execs bubblewrap instead, with an environment
of the kernelspec's variables only (bubblewrap is the sandbox's PID 1, whose
``/proc/1/environ`` the kernel can read); ``--network`` keeps the network;
``--attempts-root DIR`` (the lab's attempts folder) leaves a kernel started
anywhere else with an empty attempt folder.

The launcher runs with the server's Python (it needs ``cibench_lab``); the kernel
runs ``--kernel-python PATH`` (the kernelspec names the kernel environment's
interpreter: :mod:`.interpreter`), which has no ``cibench_lab``.  A kernel of
another Python than the launcher's gets none of the server's ``PYTHONPATH``,
``PYTHONHOME`` or ``VIRTUAL_ENV``: they are the server's environment's, not its own.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..models.redact import HIDE_VAR, hidden_names, is_secret_name

SANDBOX_FLAG = "--sandbox"
NETWORK_FLAG = "--network"
ATTEMPTS_FLAG = "--attempts-root"  # its value: only a folder inside it is the kernel's attempt
PYTHON_FLAG = "--kernel-python"  # its value: the interpreter that runs ipykernel (default: this one)
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
    args: list[str], environ: dict[str, str], python: str = ""
) -> tuple[list[str], dict[str, str]]:
    """bwrap's argv and environment for a kernel with ipykernel arguments ``args`` (``-f FILE``)."""
    from .interpreter import describe
    from .kernel import KERNEL_ENV
    from .sandbox import attempt_folder, bwrap_argv, kernel_policy, sandbox_env

    network = NETWORK_FLAG in args
    args = [a for a in args if a != NETWORK_FLAG]
    root, args = _take(args, ATTEMPTS_FLAG)
    connection = Path(args[args.index("-f") + 1])
    attempt = attempt_folder(Path.cwd(), root)
    interpreter = describe(python or sys.executable)
    policy = kernel_policy(attempt, connection.parent, network, interpreter)
    # its parent is bubblewrap's init, PID 1: no parent poller (it would exit at once), no
    # "Ctrl-C will not work" banner; it dies with the sandbox instead (--die-with-parent)
    kernel = [interpreter.executable, "-m", "ipykernel_launcher", "--IPKernelApp.parent_handle=1", *args]
    argv = bwrap_argv(policy, kernel)
    return argv, sandbox_env(kernel_env(environ), policy, KERNEL_ENV)


def unsandboxed_env(environ: dict[str, str], python: str) -> dict[str, str]:
    """An unsandboxed kernel's environment: no secrets; for another Python than this one, none of
    the server environment's Python variables, and that Python's ``bin`` first on ``PATH``."""
    env = kernel_env(environ)
    if os.path.abspath(python) != os.path.abspath(sys.executable):
        env = {k: v for k, v in env.items() if k not in SERVER_PYTHON_VARS}
        env["PATH"] = os.pathsep.join(p for p in (os.path.dirname(python), env.get("PATH", "")) if p)
    return env


def main() -> None:
    python, args = _take(sys.argv[1:], PYTHON_FLAG)
    python = python or sys.executable
    if SANDBOX_FLAG in args:
        argv, env = sandboxed_command([a for a in args if a != SANDBOX_FLAG], dict(os.environ), python)
        os.execve(argv[0], argv, env)
    argv = [python, "-m", "ipykernel_launcher", *args]
    os.execve(python, argv, unsandboxed_env(dict(os.environ), python))


if __name__ == "__main__":
    main()
