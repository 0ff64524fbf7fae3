"""Task kernels on an environment off the pinned lock are said so in the lab (GET settings'
``kernel_unpinned``, shown by the panel) and by the commands (one warning line), not only in a log
(issue 32). Unpinned here is the server's own Python, a real one: its libraries are today's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cibench_lab.kernels.interpreter import PYTHON_VAR, kernel_python

REPO = Path(__file__).resolve().parents[2]
START = (
    "import argparse, sys; from cibench_lab.cli.common import start_sandbox; "
    "sys.exit(0 if start_sandbox(argparse.Namespace(no_sandbox=True)) else 1)"
)


@pytest.fixture
def jp_server_config(jp_server_config, monkeypatch):
    monkeypatch.setenv(PYTHON_VAR, sys.executable)  # the server's own Python: today's pandas
    lab = {**jp_server_config["CIBenchLabApp"], "kernel_check": "off"}
    return {**jp_server_config, "CIBenchLabApp": lab}


@pytest.mark.fast
async def test_the_lab_is_told_its_task_kernels_run_unpinned(api):
    code, settings = await api("GET", "settings")
    assert code == 200
    note = settings["kernel_unpinned"]
    assert note.startswith("task kernels run an unpinned environment (the server's own Python")
    assert "cibench-lab kernel-env" in note and "\n" not in note


def command_warnings(python: str) -> list[str]:
    env = {**os.environ, PYTHON_VAR: python, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", START], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return [line for line in done.stderr.splitlines() if line.startswith("warning:")]


@pytest.mark.fast
def test_a_command_on_an_unpinned_kernel_prints_one_warning_line():
    warnings = [w for w in command_warnings(sys.executable) if "sandboxed" not in w]
    assert len(warnings) == 1 and "unpinned environment" in warnings[0], warnings
    assert "cibench-lab kernel-env" in warnings[0]


@pytest.mark.fast
def test_a_command_on_the_pinned_kernel_warns_of_nothing_but_the_sandbox():
    pinned = kernel_python({})
    if pinned == sys.executable:
        pytest.skip("no kernel environment (bash scripts/setup installs it)")
    assert [w for w in command_warnings(pinned) if "sandboxed" not in w] == []
