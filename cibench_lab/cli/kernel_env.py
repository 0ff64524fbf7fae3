"""`cibench-lab kernel-env`: install the pinned kernel environment, then the kernelspec that runs it.

A venv (default ``<this environment>/kernel``, where the server looks for the kernel's Python) with
the shipped ``requirements.txt`` installed under ``constraints.txt`` (``kernels/kernelenv.py``), as
``scripts/kernel-env`` does in a clone. Idempotent: an environment already holding every pin at its
version is kept (checked package by package, no pip run); any other is rebuilt from scratch. A pip
failure ends in one line naming the package (:func:`pip_failure`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

from ..kernels.interpreter import PYTHON_VAR, KernelPythonError, describe, kernel_env_python
from ..kernels.kernelenv import CONSTRAINTS, REQUIREMENTS, mismatch_text, mismatches, pins, stamp_text
from . import add_command

STEPS = 3
BASES = ("python3.11", "python3.10", "python3.9")  # tensorflow-cpu 2.14 has wheels for 3.9-3.11 only
_FAILURES = (  # pip's lines that name what failed, most specific first
    (re.compile(r"No matching distribution found for (\S+)"), "pip found no distribution of {}"),
    (
        re.compile(r"Could not find a version that satisfies the requirement (\S+)"),
        "pip found no version of {}",
    ),
    (re.compile(r"Cannot install (.+?) because"), "pip cannot install {}: no version it finds fits the pins"),
    (re.compile(r"Failed (?:building wheel for|to build) (\S+)"), "pip could not build {}"),
    (re.compile(r"^(\S+ \S+) (?:has requirement|requires) (.+)"), "{} needs another version: {}"),
)


class EnvError(Exception):
    """The environment cannot be installed; the message is its one line."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "kernel-env")
    p.add_argument("--path", type=Path, help="where to install it (default: <this environment>/kernel)")
    p.add_argument(
        "--constraints", type=Path, default=CONSTRAINTS, help="the lock (default: the shipped one)"
    )
    p.add_argument(
        "--requirements", type=Path, default=REQUIREMENTS, help="what kernels import (default: shipped)"
    )
    p.set_defaults(fn=cmd_kernel_env)


def cmd_kernel_env(args: argparse.Namespace) -> int:
    target = (args.path or kernel_env_python().parents[1]).expanduser().absolute()
    files = (args.constraints, args.requirements)
    lock = pins(args.constraints)
    try:
        wrong = _wrong(target, lock)
        if wrong:
            _install(target, files, wrong)
            wrong = _wrong(target, lock)
            if wrong:
                raise EnvError(
                    f"{target} still differs from the lock after the install: {mismatch_text(wrong)}"
                )
        else:
            print(f"kernel env: {target} is up to date ({len(lock)} packages at the lock's versions)")
    except EnvError as err:
        print(f"error: kernel env: {err}", file=sys.stderr)
        return 2
    _stamp(target, files)
    _kernelspec(target)
    return 0


def _wrong(target: Path, lock: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    """What of ``lock`` the environment at ``target`` lacks (all of it when there is none)."""
    python = target / "bin" / "python"
    if not python.is_file():
        return {name: (want, None) for name, want in lock.items()}
    try:
        return mismatches(describe(str(python)).packages, lock)
    except KernelPythonError:
        return {name: (want, None) for name, want in lock.items()}


def _install(target: Path, files: tuple[Path, Path], wrong: dict) -> None:
    started = time.monotonic()
    if (target / "bin" / "python").is_file():
        print(f"kernel env: {target} differs from the lock ({mismatch_text(wrong)}): reinstalling")
    _clear(target)
    base = base_python()
    print(f"kernel env [1/{STEPS}]: a venv at {target} ({base})", flush=True)
    _run([base, "-m", "venv", str(target)], "creating the venv")
    python = str(target / "bin" / "python")
    constraints, requirements = files
    print(
        f"kernel env [2/{STEPS}]: pip install -r {requirements.name} -c {constraints.name} (minutes)",
        flush=True,
    )
    _pip(
        [
            python,
            "-m",
            "pip",
            "install",
            "--progress-bar",
            "off",
            "-r",
            str(requirements),
            "-c",
            str(constraints),
        ]
    )
    print(f"kernel env [3/{STEPS}]: pip check", flush=True)
    _pip([python, "-m", "pip", "check"])
    print(f"kernel env: ready in {time.monotonic() - started:.0f} s: {python}")


def _clear(target: Path) -> None:
    """Remove the environment at ``target``; refuse a folder that is not an empty one or a venv."""
    if not target.exists():
        return
    if target.is_dir() and not any(target.iterdir()):
        target.rmdir()
        return
    if not (target / "pyvenv.cfg").is_file():
        raise EnvError(f"{target} exists and is not a virtualenv: choose another --path or remove it")
    shutil.rmtree(target)


def base_python() -> str:
    """The Python to base the venv on: ``KERNEL_PYTHON``, this one, or the first 3.9-3.11 found."""
    for candidate in (os.environ.get("KERNEL_PYTHON"), sys.executable, *BASES):
        path = shutil.which(candidate) if candidate else None
        if path and _supported(path):
            return path
    raise EnvError(
        "it needs a Python 3.9-3.11 (tensorflow-cpu 2.14); none found: set KERNEL_PYTHON=/path/to/python3.11"
    )


def _supported(python: str) -> bool:
    probe = "import sys; sys.exit(not (3, 9) <= sys.version_info[:2] <= (3, 11))"
    try:
        return (
            subprocess.run([python, "-c", probe], capture_output=True, timeout=30, check=False).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise EnvError(f"{what} failed: {why}")


def _pip(argv: list[str]) -> None:
    """Run pip with its lines shown as they come; a failure raises its one line (:func:`pip_failure`)."""
    kept: deque[str] = deque(maxlen=200)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(f"  {line.rstrip()}", flush=True)
            kept.append(line.rstrip())
    if proc.returncode:
        raise EnvError(pip_failure(list(kept), proc.returncode))


def pip_failure(lines: list[str], status: int) -> str:
    """One line naming what pip could not install, from its output."""
    for pattern, text in _FAILURES:
        for line in lines:
            match = pattern.search(line.removeprefix("ERROR: ").strip())
            if match:
                return text.format(*match.groups()) + " (pip's lines above say more)"
    errors = [line.removeprefix("ERROR: ") for line in lines if line.startswith("ERROR:")]
    return errors[-1] if errors else f"pip ended with exit status {status}"


def _stamp(target: Path, files: tuple[Path, Path]) -> None:
    """The stamp of ``scripts/kernel-env`` (what the env holds, recorded with each attempt),
    written only when it differs."""
    from ..kernels.interpreter import STAMP

    path, text = target / STAMP, stamp_text(files)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _kernelspec(target: Path) -> None:
    """(Re)write the `cibench-lab` kernelspec to run ``target``'s Python, and say how the server
    finds it when it is not the default place."""
    from ..kernels.spec import ensure_kernelspec

    python = target / "bin" / "python"
    default = kernel_env_python().parents[1].absolute() == target
    if not default:
        os.environ[PYTHON_VAR] = str(python)
    folder = ensure_kernelspec()
    print(f"kernel env: the cibench-lab kernelspec ({folder}) runs {python}")
    if not default:
        print(f"kernel env: start the server and commands with {PYTHON_VAR}={python} (not the default place)")
