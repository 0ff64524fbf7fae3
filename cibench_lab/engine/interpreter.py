"""The task kernel's Python: which interpreter task kernels run, and what it holds.

Task kernels run in an environment of their own (``.venv/kernel``, installed by
``scripts/setup`` from ``kernel-env/constraints.txt``), separate from the server's:
the server needs today's libraries, CIBench-era task code needs the era's, and
nothing of ``cibench_lab`` is importable in the kernel.  The kernel's Python is
chosen once per process (:func:`kernel_python`):

1. ``CIBENCH_LAB_KERNEL_PYTHON`` (set by ``CIBenchLabApp.kernel_python`` too);
2. else ``<the server's environment>/kernel/bin/python`` when it exists;
3. else the server's own Python (said in one line by :func:`kernel_python_note`).

What that interpreter holds is asked of the interpreter itself, in a subprocess
(:func:`describe`, cached per path): its prefixes (the sandbox binds them), its
version and its packages (each attempt records them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PYTHON_VAR = "CIBENCH_LAB_KERNEL_PYTHON"
KERNEL_ENV = "kernel"  # the kernel environment's folder inside the server's environment
STAMP = "cibench-lab-kernel-env.sha256"  # written by scripts/kernel-env: what the env was installed from

_PROBE = """\
import json, os, sys
from importlib import metadata
packages = {}
for dist in metadata.distributions():
    name = dist.metadata['Name']
    if name:
        packages[name.lower().replace('_', '-')] = dist.version
real = os.path.realpath(sys.executable)
print(json.dumps({
    'version': sys.version.split()[0],
    'prefix': sys.prefix,
    'dirs': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.dirname(real))],
    'packages': packages,
}))
"""


class KernelPythonError(ValueError):
    """The configured kernel Python cannot be used; the message names it and the setting."""


@dataclass(frozen=True)
class Interpreter:
    """A Python task kernels run, as it describes itself."""

    executable: str
    version: str
    prefix: Path
    dirs: tuple[Path, ...]  # its environment and base installation (the sandbox binds them)
    packages: dict[str, str]  # canonical (lower-case, dashed) distribution name -> version

    def constraints_sha256(self) -> str | None:
        """The sha256 of the constraints file this environment was installed from (its stamp)."""
        try:
            lines = (self.prefix / STAMP).read_text().splitlines()
        except OSError:
            return None
        found = [line.split()[0] for line in lines if line.strip().endswith("constraints.txt")]
        return found[0] if found else None


def kernel_env_python(prefix: str | Path | None = None) -> Path:
    """Where the kernel environment's Python is: inside the server's environment."""
    return Path(prefix or sys.prefix) / KERNEL_ENV / "bin" / "python"


def kernel_python(environ: Mapping[str, str] | None = None, prefix: str | Path | None = None) -> str:
    """The Python task kernels run (see the module's docstring for the order)."""
    configured = (os.environ if environ is None else environ).get(PYTHON_VAR, "")
    if configured:
        path = os.path.abspath(os.path.expanduser(configured))
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise KernelPythonError(
                f"the kernel Python {configured!r} ({PYTHON_VAR} / CIBenchLabApp.kernel_python) "
                "is not an executable file"
            )
        return path
    default = kernel_env_python(prefix)
    if default.is_file() and os.access(default, os.X_OK):
        return str(default)
    return sys.executable


def kernel_python_note(executable: str, prefix: str | Path | None = None) -> str:
    """One line saying which Python task kernels run, and why."""
    if executable != sys.executable:
        return f"task kernels run {executable}"
    return (
        f"task kernels run the server's own Python ({executable}): no kernel environment at "
        f"{kernel_env_python(prefix).parent.parent} (bash scripts/setup installs it; or set {PYTHON_VAR})"
    )


@lru_cache(maxsize=8)
def describe(executable: str) -> Interpreter:
    """Ask ``executable`` what it is (cached per path for this process)."""
    try:
        done = subprocess.run(
            [executable, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise KernelPythonError(f"the kernel Python {executable} does not run: {err}") from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise KernelPythonError(f"the kernel Python {executable} does not run: {why}")
    facts = json.loads(done.stdout)
    return Interpreter(
        executable=executable,
        version=facts["version"],
        prefix=Path(facts["prefix"]),
        dirs=tuple(Path(d) for d in facts["dirs"]),
        packages=dict(facts["packages"]),
    )


def check_kernel_python() -> str | None:
    """None when the kernel Python can be used, else one line saying why not."""
    try:
        describe(kernel_python())
    except KernelPythonError as err:
        return str(err)
    return None
