"""The environment an attempt ran in, recorded with it (comparability across machines)."""

from __future__ import annotations

import os
import platform
import sys
from functools import lru_cache
from importlib import metadata

from ..tasks.model import Task
from .kernel import KERNEL_ENV
from .sandbox import current

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
    "scikit-image",
    "ipykernel",
    "cibench-lab",
)


def environment() -> dict:
    """The machine, the libraries and the kernel sandbox this process starts kernels in."""
    return {**_machine(), "sandbox": current().as_dict()}


@lru_cache(maxsize=1)
def _machine() -> dict:
    versions = {}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": {k: v for k, v in KERNEL_ENV.items() if k.endswith("THREADS")},
        "libraries": versions,
    }


def attempt_environment(task: Task) -> dict:
    """:func:`environment` plus how ``task``'s plots are rendered in its kernels (tasks/rendering.py)."""
    r = task.rendering
    return {**environment(), "rendering": {**r.rendering.record(), "basis": r.basis, "verified": r.verified}}
