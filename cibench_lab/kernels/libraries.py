"""Whether the task kernels' Python has the task libraries, checked when the server starts
(``CIBenchLabApp.kernel_check``; docs/teach/reference.md, README's option table).

A kernel environment that lacks a library (or ipykernel, without which no kernel starts) would
otherwise be found only when a person presses Start. Three levels:

- ``find`` (default): each library is one of the top-level names an ``import`` finds in that
  Python — the interpreter's own answer (:func:`.interpreter.describe`), which the server asks
  anyway and keeps on disk, so the check costs nothing at start;
- ``import``: ``find``, then each library is imported once in that Python, in a kernel's
  environment, within :data:`IMPORT_TIMEOUT` seconds (the ten of CIBench take ~5 s): it finds a
  library installed but broken (a missing system library such as libgomp). A success is kept
  on disk (:func:`.interpreter.cache_dir`) until the environment's packages change, so only
  the first start after an install pays; a failure is asked again at the next start;
- ``off``: nothing is checked.

What failed is one line naming the interpreter and each library (:func:`check_libraries`).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from .interpreter import KernelPythonError, cache_dir, describe, probe_env

#: The libraries CIBench's tasks import, by their import names (opencv is ``cv2``).
TASK_LIBRARIES = (
    "lightgbm",
    "matplotlib",
    "nltk",
    "cv2",
    "pandas",
    "torch",
    "scipy",
    "seaborn",
    "sklearn",
    "tensorflow",
)
ALWAYS = ("ipykernel",)  # a kernel without it does not start, whatever the libraries
CHECKS = ("find", "import", "off")
IMPORT_TIMEOUT = 180.0  # seconds for importing every library once (a loaded machine's worst)
SETTING = "CIBenchLabApp.kernel_libraries"

_IMPORTS = """\
import importlib, json, sys
failed = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as err:  # an ImportError, an OSError of a shared library, a SystemExit
        said = (str(err).strip().splitlines() or [''])[0][:300]
        failed[name] = type(err).__name__ + (': ' + said if said else '')
print(json.dumps(failed))
"""


def check_libraries(
    executable: str, libraries: list[str], check: str = "find", cache: Path | None = None
) -> str | None:
    """None when ``executable`` has every library (and ipykernel) at level ``check``, else one
    line naming the interpreter and what failed."""
    if check == "off":
        return None
    names = list(dict.fromkeys([*ALWAYS, *libraries]))
    try:
        interp = describe(executable, cache)
    except KernelPythonError as err:
        return str(err)
    missing = [name for name in names if name.split(".")[0] not in interp.modules]
    if missing:
        return _line(executable, {name: "not installed" for name in missing})
    if check != "import":
        return None
    kept = _kept_file(cache or cache_dir(), executable, names, interp.packages)
    if kept.is_file():
        return None
    failed = _import(executable, names)
    if failed:
        return _line(executable, failed)
    _keep(kept)
    return None


def _line(executable: str, failed: dict[str, str]) -> str:
    said = "; ".join(f"{name} ({why})" for name, why in failed.items())
    return (
        f"the kernel Python {executable} cannot import {said}: task kernels need "
        f"{'it' if len(failed) == 1 else 'them'} (bash scripts/setup installs the kernel environment; "
        f"{SETTING} chooses the libraries checked, CIBenchLabApp.kernel_check='off' skips the check)"
    )


def _import(executable: str, names: list[str]) -> dict[str, str]:
    """Each name that fails to import in ``executable``, with why (its exception's first line)."""
    try:
        done = subprocess.run(
            [executable, "-I", "-c", _IMPORTS, *names],
            capture_output=True,
            text=True,
            timeout=IMPORT_TIMEOUT,
            check=False,
            env=probe_env(executable),
        )
    except subprocess.TimeoutExpired:
        return {"the libraries": f"importing them took over {IMPORT_TIMEOUT:.0f} s"}
    except OSError as err:
        return {"the libraries": f"it does not run: {err}"}
    try:
        failed = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"the libraries": f"the import ended: {why[:300]}"}
    return {str(k): str(v) for k, v in failed.items()} if isinstance(failed, dict) else {}


def _kept_file(folder: Path, executable: str, names: list[str], packages: dict[str, str]) -> Path:
    """Where a success is kept: named by the interpreter, the names and every package's version
    (an install or an upgrade changes them, and the libraries are imported again)."""
    key = json.dumps([executable, sorted(names), sorted(packages.items())])
    return folder / f"imports-{hashlib.sha256(key.encode()).hexdigest()[:32]}.ok"


def _keep(path: Path) -> None:
    """Remember a success; a folder that cannot be written only means importing again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("ok\n", encoding="utf-8")
    except OSError:
        pass
