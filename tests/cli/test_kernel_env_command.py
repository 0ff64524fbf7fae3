"""`cibench-lab kernel-env`: the pinned kernel environment for a pip user (issue 32).

Real venvs in a temp folder, pip offline (``PIP_NO_INDEX``): a lock the venv already holds is kept
without a pip run; a lock pip cannot satisfy ends in one line naming the package. The kernelspec is
written under ``CIBENCH_LAB_KERNEL_PREFIX`` (never the shared venv's)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cibench_lab.cli import main
from cibench_lab.kernels.interpreter import STAMP, describe
from cibench_lab.kernels.kernelenv import CONSTRAINTS, REQUIREMENTS, pins, stamp_text, unpinned_note

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def offline(tmp_path, monkeypatch):
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.setenv("CIBENCH_LAB_KERNEL_PREFIX", str(tmp_path / "ks"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    # set, then removed: monkeypatch then restores it (absent) after the command set it in this process
    # (a delenv of an absent variable records nothing, and the next tests' kernels would run this env)
    monkeypatch.setenv("CIBENCH_LAB_KERNEL_PYTHON", "")
    monkeypatch.delenv("CIBENCH_LAB_KERNEL_PYTHON")
    return tmp_path


def lock_files(folder: Path, lock: str, requirements: str) -> list[str]:
    (folder / "c.txt").write_text(lock)
    (folder / "r.txt").write_text(requirements)
    return ["--constraints", str(folder / "c.txt"), "--requirements", str(folder / "r.txt")]


@pytest.mark.fast
def test_the_lock_ships_in_the_package_and_scripts_kernel_env_reads_it():
    assert CONSTRAINTS.parent == REPO / "cibench_lab" / "kernels" / "envs"
    assert pins()["pandas"] == "2.1.4" and pins()["tensorflow-cpu"] == "2.14.0"
    assert "pandas" in REQUIREMENTS.read_text().split()
    script = (REPO / "scripts" / "kernel-env").read_text()
    assert "REQ=cibench_lab/kernels/envs/requirements.txt" in script
    assert "LOCK=cibench_lab/kernels/envs/constraints.txt" in script
    assert not (REPO / "kernel-env" / "constraints.txt").exists()  # one copy


def test_a_complete_environment_is_kept_without_a_pip_run(offline, capsys):
    target = offline / "env"
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    pip_version = describe(str(target / "bin" / "python")).packages["pip"]
    files = lock_files(offline, f"pip=={pip_version}\n", "pip\n")
    started = time.monotonic()
    assert main(["kernel-env", "--path", str(target), *files]) == 0
    out = capsys.readouterr().out
    assert f"{target} is up to date (1 packages" in out and "pip install" not in out
    assert time.monotonic() - started < 30
    stamp = (target / STAMP).read_text()
    assert stamp == stamp_text((offline / "c.txt", offline / "r.txt"))
    spec = json.loads((offline / "ks" / "kernels" / "cibench-lab" / "kernel.json").read_text())
    assert str(target / "bin" / "python") in spec["argv"]


def test_a_lock_pip_cannot_satisfy_ends_in_one_line_naming_the_package(offline, capsys):
    target = offline / "env"
    files = lock_files(offline, "cibench-lab-no-such-package==1.0\n", "cibench-lab-no-such-package\n")
    assert main(["kernel-env", "--path", str(target), *files]) == 2
    captured = capsys.readouterr()
    assert "kernel env [2/3]: pip install" in captured.out  # the steps, then pip's own lines
    errors = captured.err.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("error: kernel env: pip ")
    assert "cibench-lab-no-such-package" in errors[0]
    assert not (offline / "ks").exists()  # no kernelspec for an environment that failed


def test_a_folder_that_is_not_a_venv_is_refused_untouched(offline, capsys):
    target = offline / "mine"
    target.mkdir()
    (target / "notes.txt").write_text("keep me")
    files = lock_files(offline, "pip==0.0.1\n", "pip\n")
    assert main(["kernel-env", "--path", str(target), *files]) == 2
    assert "is not a virtualenv" in capsys.readouterr().err
    assert (target / "notes.txt").read_text() == "keep me"


@pytest.mark.fast
def test_an_environment_off_the_lock_is_said_unpinned_naming_the_package(offline):
    server = describe(sys.executable)
    lock = {"pandas": "2.1.4", "pip": server.packages["pip"]}
    note = unpinned_note(server, {**lock, "pandas": "0.0.1"})
    assert note is not None and "unpinned" in note and "pandas" in note and "cibench-lab kernel-env" in note
    assert unpinned_note(server, {"pip": server.packages["pip"]}) is None


@pytest.mark.fast
def test_pips_failures_are_said_naming_the_package():
    from cibench_lab.cli.kernel_env import pip_failure

    missing = [
        "ERROR: Could not find a version that satisfies the requirement torch==2.13.0+cpu (from versions: )",
        "ERROR: No matching distribution found for torch==2.13.0+cpu",
    ]
    assert pip_failure(missing, 1).startswith("pip found no distribution of torch==2.13.0+cpu")
    built = ["  error: subprocess-exited-with-error", "  ERROR: Failed building wheel for lightgbm"]
    assert pip_failure(built, 1).startswith("pip could not build lightgbm")
    assert pip_failure(["something else"], 3) == "pip ended with exit status 3"
