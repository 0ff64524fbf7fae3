"""The Qwen benchmark's executable rate, run: one item's code in its own sandboxed process.

The original ``exec``s every item's code one after another in its scoring process, with
``exec(code, locals())`` (so the code's globals hold only ``text``), inside func_timeout's
worker thread when the family has a limit, and ``pip install``s a missing module and tries
again.  Here each item runs in a fresh process of the kernel Python, in the trusted-play
sandbox (:mod:`cibench_lab.kernels.sandbox`: no network, the system-call filter, the task kernels'
limits — :mod:`cibench_lab.kernels.limits`) unless it is turned off, in a scratch folder holding a
copy of ``upload_file_clean`` as ``upload_file`` (the original's ``pre_load`` changes into it);
nothing is ever installed.  As in the original: the same globals, a worker thread when there is
a limit (``signal`` fails there as it did), the limit counted after the libraries the original
had already imported are loaded, and anything raised (``SystemExit`` too, which stopped the
original's scorer) makes the item not executable.  ``general`` has no limit in the original;
here it has a safety cap of :data:`GENERAL_CAP` seconds.  The code reaches the process on its
stdin (so ``input()`` meets the end of it) and its verdict comes back on a descriptor of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ...errors import EngineError
from ...grading.qwen.execrate import ExecItem
from ...grading.qwen.score import ExecResult
from ...kernels.interpreter import describe, kernel_python
from ...kernels.launch import kernel_env, unsandboxed_env
from ...kernels.limits import LIMITS_VAR, KernelLimits, enter_cgroup, process_cgroup, remove_cgroup
from ...kernels.sandbox import bwrap_argv, kernel_policy, prepare, sandbox_env
from ...kernels.seccomp import filter_fd

GENERAL_CAP = 300.0  # seconds: the original has no limit for general; a hung item must end
WARM_ALLOWANCE = 120.0  # seconds for the process to start and import the libraries
OUTPUT_TAIL = 400  # characters of an error kept per item

RUNNER = r"""
import json, os, sys, threading
verdict = os.dup(1)
os.dup2(2, 1)
code = sys.stdin.read()
import math, re
import matplotlib, matplotlib.pyplot, numpy, pandas, seaborn, sympy
limit = float(sys.argv[1])
outcome = {"executable": False, "error": ""}
def run():
    try:
        exec(code, {"text": code})
        outcome["executable"] = True
    except BaseException as err:
        outcome["error"] = f"{type(err).__name__}: {err}"
if limit > 0:
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        outcome = {"executable": False, "error": f"timed out after {limit:g} seconds"}
else:
    run()
sys.stdout.flush()
sys.stderr.flush()
os.write(verdict, json.dumps(outcome).encode())
os._exit(0)
"""


class QwenExecutor:
    """Runs items' code (see the module's docstring); ``sandbox=False`` runs it unconfined."""

    def __init__(self, upload: Path | None, sandbox: bool = True):
        self.upload = upload
        self.sandbox = sandbox
        self.python = kernel_python()
        # the task kernels' limits (as configured for this process's kernels, else the defaults)
        self.limits = KernelLimits.parse(os.environ.get(LIMITS_VAR, ""))
        if sandbox:
            problem = prepare()
            if problem:
                raise EngineError(problem)

    def __call__(self, item: ExecItem) -> ExecResult:
        limit = item.limit if item.limit is not None else GENERAL_CAP
        with tempfile.TemporaryDirectory(prefix="cibench-qwen-") as tmp:
            folder = Path(tmp)
            self._stage(folder)
            fd = filter_fd() if self.sandbox else None
            cgroup = process_cgroup(self.limits.processes) if self.sandbox else None  # as root
            argv, env, cwd = self._command(folder, limit, fd)
            try:
                done = subprocess.run(
                    argv,
                    input=item.code,
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=cwd,
                    timeout=limit + WARM_ALLOWANCE,
                    pass_fds=() if fd is None else (fd,),
                    preexec_fn=self._confine(cgroup) if self.sandbox else None,
                )
            except subprocess.TimeoutExpired:
                return ExecResult(False, f"timed out after {limit:g} seconds (the process was stopped)")
            finally:
                if fd is not None:
                    os.close(fd)
                remove_cgroup(cgroup)
        return _verdict(done)

    def _confine(self, cgroup: Path | None) -> Callable[[], None]:
        """What the item's process does before it runs bubblewrap: a kernel launcher's child's
        (:func:`cibench_lab.kernels.launch`): its own pids cgroup (as root), then the rlimits."""

        def confine() -> None:
            if cgroup is not None:
                enter_cgroup(cgroup)
            self.limits.apply()

        return confine

    def _stage(self, folder: Path) -> None:
        target = folder / "upload_file"
        if self.upload is not None:
            shutil.copytree(self.upload, target)
        else:
            target.mkdir()

    def _command(self, folder: Path, limit: float, fd: int | None) -> tuple[list[str], dict[str, str], str]:
        command = [self.python, "-c", RUNNER, str(limit)]
        if not self.sandbox:
            return command, unsandboxed_env(dict(os.environ), self.python), str(folder)
        policy = kernel_policy(folder, None, False, describe(self.python))
        policy = replace(policy, seccomp_fd=fd, limits=self.limits)
        env = sandbox_env(kernel_env(dict(os.environ)), policy, {})
        return bwrap_argv(policy, command), env, str(folder)


def _verdict(done: subprocess.CompletedProcess) -> ExecResult:
    try:
        said = json.loads(done.stdout)
        return ExecResult(bool(said["executable"]), str(said["error"])[:OUTPUT_TAIL])
    except (ValueError, KeyError, TypeError):
        tail = (done.stderr or "").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return ExecResult(False, f"the process ended without a verdict: {tail[0]}"[:OUTPUT_TAIL])
