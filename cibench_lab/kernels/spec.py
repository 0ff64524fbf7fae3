"""The task kernel: one environment for people, models, lab and headless runs.

The `cibench-lab` kernelspec fixes thread counts and quietens noisy libraries so
that the same code gives the same numbers and the same PNGs everywhere
(the variables are in ``KERNEL_ENV``).  The start code mirrors what CIBench's
interpreter runs before a task (no ``input()``, no shell escapes), then sets the
task's plot rendering (:func:`start_code`); it is run by the server (lab), the
executor (headless, ``tasks verify``) and ``tasks build`` before the first step.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..tasks.rendering import Rendering
from .fonts import CJK_CODE

if TYPE_CHECKING:  # imported where used: jupyter_client is loaded only when a kernelspec is written
    from jupyter_client.kernelspec import KernelSpecManager

KERNEL_NAME = "cibench-lab"
LAUNCHER = "cibench_lab.kernels.launch"  # an earlier version's spec is rewritten at start
PROVISIONER = "cibench-lab-sandbox"  # kernels/provisioner.py (pyproject.toml's entry point)
THREADS = "1"

#: Environment every task kernel gets, on top of the server's own.
KERNEL_ENV: dict[str, str] = {
    "OMP_NUM_THREADS": THREADS,
    "OPENBLAS_NUM_THREADS": THREADS,
    "MKL_NUM_THREADS": THREADS,
    "NUMEXPR_NUM_THREADS": THREADS,
    "TF_NUM_INTRAOP_THREADS": THREADS,
    "TF_NUM_INTEROP_THREADS": THREADS,
    "TF_CPP_MIN_LOG_LEVEL": "2",
    "CUDA_VISIBLE_DEVICES": "-1",
    "PYTHONHASHSEED": "0",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}

#: Run once in every task kernel, hidden, before the first step.
START_CODE = """\
def input(*args, **kwargs):
    raise NotImplementedError('Python input() function is disabled.')

get_ipython().system = lambda *args: print('Assume we have this package, ! is disabled!')
"""
# Each displayed matplotlib figure also carries what it shows (inkernel/figure_capture.py, sent as text).
_CAPTURE = (Path(__file__).parent / "inkernel" / "figure_capture.py").read_text(encoding="utf-8")
START_CODE += f"exec({_CAPTURE!r}, _cibench_ns := {{'__name__': 'cibench_lab_figure'}})\n"
START_CODE += "_cibench_ns['register']()\ndel _cibench_ns\n"
START_CODE += CJK_CODE  # Chinese draws in every task's plots (fonts.py)


def rendering_code(rendering: Rendering) -> str:
    """Python that gives matplotlib ``rendering``'s rcParams (nothing when it is not installed)."""
    rc = ", ".join(f"{k!r}: {v!r}" for k, v in rendering.rc().items())
    return (
        "try:\n"
        "    import matplotlib as _mpl\n"
        f"    _mpl.rcParams.update({{{rc}}})\n"
        "    del _mpl\n"
        "except ImportError:\n"
        "    pass\n"
    )


def start_code(rendering: Rendering) -> str:
    """The hidden start code of a kernel that plays a task rendered as ``rendering``
    (``task.rendering.rendering``)."""
    return START_CODE + rendering_code(rendering)


def kernelspec_dict(python: str | None = None, launcher_python: str | None = None) -> dict:
    """The kernel.json of the `cibench-lab` kernelspec: the launcher runs with the server's Python
    (``launcher_python``), the kernel with ``python`` (default: :func:`.interpreter.kernel_python`)."""
    from .interpreter import kernel_python
    from .launch import PYTHON_FLAG

    return {
        # the launcher drops the server's secrets from the kernel's environment
        "argv": [
            launcher_python or sys.executable,
            "-m",
            LAUNCHER,
            PYTHON_FLAG,
            python or kernel_python(),
            "-f",
            "{connection_file}",
            # the inline backend, activated before the first cell: imported from pyplot on first
            # use, matplotlib-inline 0.2 under matplotlib < 3.9 registers its PNG formatter only
            # after that cell (the first figure would show as text)
            "--matplotlib=inline",
        ],
        "display_name": "Python 3 (CIBench)",
        "language": "python",
        "env": dict(KERNEL_ENV),
        # a signal to bubblewrap's process group would kill the sandbox: interrupt by message
        "interrupt_mode": "message",
        "metadata": {"debugger": False, "kernel_provisioner": {"provisioner_name": PROVISIONER}},
    }


def hide_from_kernels(*names: str) -> None:
    """Name environment variables task kernels must not inherit (API keys by name)."""
    from .launch import HIDE_VAR

    current = {n for n in os.environ.get(HIDE_VAR, "").split(",") if n}
    os.environ[HIDE_VAR] = ",".join(sorted(current | {n for n in names if n}))


def install_kernelspec(prefix: Path) -> Path:
    """Write the kernelspec under ``prefix/kernels/cibench-lab`` and return its folder.

    Atomic (temp file + rename) and skipped when unchanged, so concurrent
    processes never read a half-written kernel.json.
    """
    folder = Path(prefix) / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "kernel.json"
    text = json.dumps(kernelspec_dict(), indent=2)
    if target.is_file() and target.read_text() == text:
        return folder
    tmp = folder / f".kernel.json.{os.getpid()}.tmp"
    tmp.write_text(text)
    os.replace(tmp, target)
    return folder


def ensure_kernelspec(kernel_spec_manager: KernelSpecManager | None = None) -> Path:
    """Write the `cibench-lab` kernelspec where ``kernel_spec_manager`` will find it.

    This environment's ``share/jupyter`` when the manager searches it, else the
    user's kernel dir; ``CIBENCH_LAB_KERNEL_PREFIX`` (a folder holding
    ``kernels/``) overrides both.  Written every time, so the spec always runs
    this Python's launcher and the kernel Python this process chose.
    """
    from .provisioner import register

    register()  # the kernels this process starts find the sandbox's provisioner
    override = os.environ.get("CIBENCH_LAB_KERNEL_PREFIX")
    if override:
        return install_kernelspec(Path(override))
    from jupyter_client.kernelspec import KernelSpecManager

    ksm = kernel_spec_manager or KernelSpecManager()
    env_kernels = Path(sys.prefix) / "share" / "jupyter" / "kernels"
    searched = {str(Path(d)) for d in ksm.kernel_dirs}
    kernels = env_kernels if str(env_kernels) in searched else Path(ksm.user_kernel_dir)
    return install_kernelspec(kernels.parent)
