"""A headless run with the warm kernel pool, stopped by a signal (SIGTERM or SIGINT to its process):
no process of it survives and nothing of it is left in the temporary folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

TASKS = [  # more than it plays before the signal
    "cibench_template/lightgbm/carseat_sales_lgbm",
    "cibench_template/pandas/airquality_ozone",
    "cibench_template/scipy/dnase_growth_curves",
    "cibench_template/sklearn/breast_cancer_classifiers",
]
WAIT = 180.0  # seconds for the run to hold a playing and a waiting kernel (a loaded machine)


def _kernels(tree: list[psutil.Process]) -> list[psutil.Process]:
    found = []
    for p in tree:
        try:
            if "ipykernel_launcher" in " ".join(p.cmdline()) and p.name() != "bwrap":
                found.append(p)
        except psutil.Error:
            continue
    return found


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _pooled_and_playing(driver: subprocess.Popen) -> list[psutil.Process]:
    """The driver's process tree once it has a kernel playing and one waiting in the pool."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert driver.poll() is None, "the run ended before it had two kernels"
        tree = _tree(driver.pid)
        if len(_kernels(tree)) >= 2:  # the attempt's and the one waiting for the next task
            return tree
        time.sleep(0.2)
    raise AssertionError("the run never held two kernels at once")


@pytest.mark.parametrize(
    ("sig", "extra"), [(signal.SIGTERM, []), (signal.SIGINT, []), (signal.SIGTERM, ["--no-sandbox"])]
)
def test_a_signalled_run_leaves_no_kernel_or_sandbox(tmp_path, sig, extra):
    db = f"sqlite:///{tmp_path / 'o.sqlite'}"
    argv = [sys.executable, "-m", "cibench_lab.cli", "--db", db, "run", "--player", "reference",
            "--tasks", *TASKS, "--run", "o", "--kernel-pool", "1", "--no-progress", *extra]  # fmt: skip
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}  # the run's attempt and pool folders
    with open(tmp_path / "run.log", "wb") as log:
        driver = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    tree: list[psutil.Process] = []
    try:
        tree = _pooled_and_playing(driver)
        # sandboxed: the launcher, bubblewrap, the kernel
        assert any(p.name() == "bwrap" for p in tree) is not bool(extra)
        os.kill(driver.pid, sig)
        driver.wait(timeout=60)
        _, alive = psutil.wait_procs(tree, timeout=30)
        assert not alive, [(p.pid, p.cmdline()) for p in alive]
        # it stopped as on Ctrl-C: its attempt folders, pool slots and connection files are removed
        said = (tmp_path / "run.log").read_text()
        assert driver.returncode == -signal.SIGINT, said[-3000:]
        # in one line, naming the run to resume: no traceback
        assert "interrupted: run o stopped; the same --run o resumes it" in said and "Traceback" not in said
        assert not list((tmp_path / "tmp").iterdir())
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
        for p in tree:
            try:
                p.kill()
            except psutil.Error:
                continue
