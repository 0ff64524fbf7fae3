"""The pinned kernel environment: its files, shipped in the package, and whether an interpreter holds it.

``envs/requirements.txt`` names what task kernels import; ``envs/constraints.txt`` pins every package of
the environment exactly (the lock; kernel-env/README.md says why these versions). Both ship in the
wheel: ``cibench-lab kernel-env`` installs them for a pip user, ``scripts/kernel-env`` for a clone —
the one copy of each. An interpreter is *pinned* when every package of the lock is installed in it
at the lock's version (:func:`mismatches`); task kernels on another are said to run *unpinned*
(:func:`unpinned_note`: the lab's settings, the commands' stderr), and built-in tasks may then fail
(pandas 3 removed the era's frequency aliases).
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

from .interpreter import STAMP, Interpreter, KernelPythonError, describe, kernel_python

ENVS = Path(__file__).resolve().parent / "envs"
REQUIREMENTS = ENVS / "requirements.txt"
CONSTRAINTS = ENVS / "constraints.txt"
COMMAND = "cibench-lab kernel-env"  # what installs it (cli/kernel_env.py)

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def canonical(name: str) -> str:
    """A distribution name as :func:`.interpreter.describe` keys packages (PEP 503, dashed)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(constraints: Path = CONSTRAINTS) -> dict[str, str]:
    """The lock: canonical name -> exact version, from ``constraints`` (comments and blanks skipped)."""
    found: dict[str, str] = {}
    for line in constraints.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        match = _PIN.match(text)
        if match:
            found[canonical(match.group(1))] = match.group(2)
    return found


def requirement_names(requirements: Path = REQUIREMENTS) -> list[str]:
    """The canonical names ``requirements`` lists (one a line, comments skipped)."""
    lines = (line.split("#", 1)[0].strip() for line in requirements.read_text(encoding="utf-8").splitlines())
    return [canonical(line) for line in lines if line]


def mismatches(packages: dict[str, str], lock: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    """Each package of ``lock`` not installed at its version: name -> (wanted, installed or None)."""
    have = {canonical(k): v for k, v in packages.items()}
    return {name: (want, have.get(name)) for name, want in lock.items() if have.get(name) != want}


def mismatch_text(wrong: dict[str, tuple[str, str | None]], most: int = 3) -> str:
    """``pandas 3.0.1 (pinned 2.1.4), torch missing (pinned 2.13.0+cpu)`` and ``+N more``."""
    said = [f"{n} {have or 'missing'} (pinned {want})" for n, (want, have) in list(wrong.items())[:most]]
    more = len(wrong) - most
    return ", ".join(said) + (f" and {more} more" if more > 0 else "")


def stamp_text(files: tuple[Path, ...] = (CONSTRAINTS, REQUIREMENTS)) -> str:
    """The stamp ``scripts/kernel-env`` writes (``sha256  name`` per file), so both agree on it."""
    return "".join(f"{hashlib.sha256(f.read_bytes()).hexdigest()}  {f.name}\n" for f in files)


def write_stamp(prefix: Path, files: tuple[Path, ...] = (CONSTRAINTS, REQUIREMENTS)) -> None:
    (prefix / STAMP).write_text(stamp_text(files), encoding="utf-8")


def unpinned_note(interp: Interpreter, lock: dict[str, str] | None = None) -> str | None:
    """None when ``interp`` holds the lock, else one line saying task kernels run unpinned."""
    wrong = mismatches(interp.packages, pins() if lock is None else lock)
    if not wrong:
        return None
    first = set(requirement_names())  # what task code imports first: pandas 3 says more than filelock
    wrong = dict(sorted(wrong.items(), key=lambda item: item[0] not in first))
    whose = "the server's own Python, " if interp.executable == sys.executable else ""
    return (
        f"task kernels run an unpinned environment ({whose}{interp.executable}: {mismatch_text(wrong)}); "
        f"built-in tasks may fail or grade differently: `{COMMAND}` installs the pinned one"
    )


def kernel_unpinned() -> str | None:
    """:func:`unpinned_note` of the Python task kernels run (None when it cannot be asked: the
    kernel check says why)."""
    try:
        return unpinned_note(describe(kernel_python()))
    except KernelPythonError:
        return None
