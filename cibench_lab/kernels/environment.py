"""The environment an attempt ran in, recorded with it (comparability across machines).

The libraries are the kernel's: asked of the kernel's own interpreter
(:func:`.interpreter.describe`), never read from the server's packages, with the
sha256 of the constraints file its environment was installed from; ``fonts.cjk``: the CJK font
its matplotlib draws Chinese with (:mod:`.fonts`).
"""

from __future__ import annotations

import os
import platform
import sys
from functools import lru_cache
from importlib import metadata

from ..grading.profile import VERSIONS
from ..tasks.model import Task
from .fonts import fonts_record
from .interpreter import describe, kernel_python
from .sandbox import current
from .spec import KERNEL_ENV

#: The kernel's libraries recorded with each attempt (canonical distribution names).
LIBRARIES = (
    "numpy",
    "pandas",
    "matplotlib",
    "scikit-learn",
    "scipy",
    "seaborn",
    "lightgbm",
    "nltk",
    "opencv-python-headless",
    "torch",
    "tensorflow-cpu",
    "keras",
    "scikit-image",
    "pillow",
    "ipykernel",
    "matplotlib-inline",
)


def environment() -> dict:
    """The machine, the kernel's Python, libraries and fonts, the sandbox this process starts kernels
    in, and the grading profiles' versions."""
    kernel = kernel_environment(kernel_python())
    sandbox = current().as_dict()
    return {**_machine(), **kernel, "fonts": fonts_record(), "sandbox": sandbox, "profiles": dict(VERSIONS)}


@lru_cache(maxsize=8)
def kernel_environment(executable: str) -> dict:
    """What the kernel of ``executable`` runs on, as that interpreter reports it."""
    python = describe(executable)
    return {
        "python": python.version,
        "libraries": {name: python.packages[name] for name in LIBRARIES if name in python.packages},
        "kernel": {
            "executable": executable,
            "python": python.version,
            "constraints_sha256": python.constraints_sha256(),
            "own_environment": os.path.abspath(executable) != os.path.abspath(sys.executable),
        },
    }


@lru_cache(maxsize=1)
def _machine() -> dict:
    try:
        server = metadata.version("cibench-lab")
    except metadata.PackageNotFoundError:
        server = None
    return {
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": {k: v for k, v in KERNEL_ENV.items() if k.endswith("THREADS")},
        "server": {"python": sys.version.split()[0], "cibench-lab": server},
    }


def attempt_environment(task: Task, profiles: dict[str, int]) -> dict:
    """:func:`environment` plus how ``task``'s plots are rendered in its kernels (tasks/rendering.py)
    and ``profiles``, the grading profiles' versions its benchmark records."""
    r = task.rendering
    rendering = {**r.rendering.record(), "basis": r.basis, "verified": r.verified}
    return {**environment(), "rendering": rendering, "profiles": dict(profiles)}
