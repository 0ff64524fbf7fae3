"""The task kernel's own Python: which one kernels run, its lock file, what it says it holds."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
from pathlib import Path

import pytest

from cibench_lab.engine import interpreter
from cibench_lab.engine.environment import environment
from cibench_lab.engine.interpreter import (
    PYTHON_VAR,
    KernelPythonError,
    describe,
    kernel_env_python,
    kernel_python,
)
from cibench_lab.engine.kernel import kernelspec_dict
from cibench_lab.engine.kernel_launch import PYTHON_FLAG, unsandboxed_env

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "kernel-env" / "constraints.txt"
REQUIREMENTS = REPO / "kernel-env" / "requirements.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def _names(path: Path) -> list[str]:
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    found = {}
    for line in _names(LOCK):
        match = PIN.match(line)
        assert match, f"{LOCK.name}: not an exact pin: {line!r}"
        found[_canonical(match[1])] = match[2]
    return found


@pytest.mark.fast
def test_every_requirement_is_pinned_exactly_in_the_lock():
    locked = pins()
    wanted = [_canonical(n) for n in _names(REQUIREMENTS)]
    unpinned = all(PIN.match(n) is None and "<" not in n and ">" not in n for n in wanted)
    assert unpinned, "versions go in the lock"
    assert [n for n in wanted if n not in locked] == []
    # CIBench's own requirements; the CPU build of torch (an unpinned torch pulls a CUDA build)
    assert locked["tensorflow-cpu"] == "2.14.0" and locked["lightgbm"] == "4.1.0"
    assert locked["torch"] == "2.13.0+cpu"
    assert locked["numpy"].startswith("1.") and locked["pandas"].startswith("2.1.")
    assert "cibench-lab" not in locked


@pytest.mark.fast
def test_the_kernel_python_is_the_setting_then_the_kernel_env_then_the_servers(tmp_path):
    assert kernel_python({}, tmp_path) == sys.executable  # no kernel env: the server's own
    env_python = kernel_env_python(tmp_path)
    env_python.parent.mkdir(parents=True)
    env_python.symlink_to(sys.executable)
    assert kernel_python({}, tmp_path) == str(env_python)
    assert kernel_python({PYTHON_VAR: sys.executable}, tmp_path) == sys.executable
    with pytest.raises(KernelPythonError, match=PYTHON_VAR):
        kernel_python({PYTHON_VAR: str(tmp_path / "nope")}, tmp_path)
    assert "scripts/setup" in interpreter.kernel_python_note(sys.executable, tmp_path / "x")


@pytest.mark.fast
def test_the_kernelspec_runs_the_launcher_with_the_servers_python_and_names_the_kernels(monkeypatch):
    monkeypatch.setenv(PYTHON_VAR, sys.executable)
    argv = kernelspec_dict()["argv"]
    assert argv[:3] == [sys.executable, "-m", "cibench_lab.engine.kernel_launch"]
    assert argv[argv.index(PYTHON_FLAG) + 1] == sys.executable


@pytest.mark.fast
def test_a_kernel_of_another_python_gets_none_of_the_servers_python_variables():
    environ = {"PYTHONPATH": "/repo", "VIRTUAL_ENV": "/srv/.venv", "PATH": "/usr/bin", "LANG": "C.UTF-8"}
    env = unsandboxed_env(environ, "/srv/.venv/kernel/bin/python")
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env and env["LANG"] == "C.UTF-8"
    assert env["PATH"] == "/srv/.venv/kernel/bin:/usr/bin"
    assert unsandboxed_env(environ, sys.executable)["PYTHONPATH"] == "/repo"  # the launcher's own


@pytest.mark.fast
def test_a_python_that_does_not_run_is_named(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(KernelPythonError, match=f"{fake}.*broken"):
        describe(str(fake))


def kernel_env() -> str:
    """The kernel environment's Python (the setting's, else the one inside this venv)."""
    python = kernel_python()
    if python == sys.executable:
        where = kernel_env_python().parents[1]
        pytest.skip(f"no kernel environment at {where} (bash scripts/setup installs it)")
    return python


@pytest.mark.fast
def test_the_attempt_records_the_kernels_libraries_asked_of_its_own_python(monkeypatch):
    python = kernel_env()
    monkeypatch.setenv(PYTHON_VAR, python)
    env = environment()
    locked = pins()
    for name in ("numpy", "pandas", "matplotlib", "tensorflow-cpu", "lightgbm", "torch", "scikit-learn"):
        assert env["libraries"][name] == locked[name], name
    assert env["kernel"]["executable"] == python and env["kernel"]["own_environment"]
    assert env["kernel"]["python"] == env["python"] and env["python"].startswith("3.")
    assert env["server"]["python"] == sys.version.split()[0]
    stamp = Path(python).parents[1] / interpreter.STAMP
    if stamp.is_file():  # installed by scripts/kernel-env (a hand-made env has no stamp)
        assert env["kernel"]["constraints_sha256"] == hashlib.sha256(LOCK.read_bytes()).hexdigest()
    assert "cibench-lab" not in describe(python).packages


@pytest.mark.fast
def test_run_and_the_server_refuse_a_kernel_python_that_is_not_there(tmp_path, monkeypatch, capsys, caplog):
    from cibench_lab.app import CIBenchLabApp
    from cibench_lab.cli import main

    missing = str(tmp_path / "no-python")
    monkeypatch.setenv(PYTHON_VAR, missing)
    assert main(["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "run", "--tasks", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and missing in err and PYTHON_VAR in err
    monkeypatch.setenv(PYTHON_VAR, "")
    app = CIBenchLabApp(kernel_python=missing)
    app.log = logging.getLogger("cibench-lab-test")  # not the app's handler of another test's stream
    with pytest.raises(SystemExit):
        app._start_kernel_python()
    assert os.environ[PYTHON_VAR] == missing  # the trait is what this process's kernels run
    assert [r.levelname for r in caplog.records if missing in r.getMessage()] == ["CRITICAL"]
