"""A real lab server and a real ``cibench-lab run``, each killed with SIGKILL once a turn has been graded
(issue 26 #8): no process of theirs is left — the grading pool's forkserver, its resource tracker,
its grading processes, the kernels and their sandboxes.  Their process trees are recorded before the
kill (by parent PID, with psutil) and each process of them must be gone within a bounded wait."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psutil

from security.labprocess import commands, kill_all, lab_server, play, start_attempt, tree

BOUND = 180.0  # seconds a run may take to grade its first turn (a loaded machine)
GONE = 30.0  # seconds the killed tree's processes may take to end
TASK = "cibench_template/lightgbm/carseat_sales_lgbm"  # has a plot step: the run starts the pool
#: a cell that leaves a process of its own in the kernel's sandbox, and prints a long output
#: (graded in the pool's processes)
LEFT_BEHIND = "import os, time\nif os.fork() == 0:\n    time.sleep(600); os._exit(0)\nprint('x' * 250_000)"


def _grading_processes(processes: list[psutil.Process]) -> list[psutil.Process]:
    """The forkserver's children: the grading processes."""
    servers = {p.pid for p in processes if "forkserver" in commands([p])}
    found = []
    for p in processes:
        try:
            if p.ppid() in servers:
                found.append(p)
        except psutil.Error:
            continue
    return found


def _assert_pool_and_kernel(processes: list[psutil.Process]) -> None:
    names = commands(processes)
    assert "forkserver" in names and "resource_tracker" in names, names
    assert _grading_processes(processes), names
    assert "ipykernel_launcher" in names and "bwrap" in names, names


def _sleeping_child(processes: list[psutil.Process]) -> bool:
    """Has a kernel (the sandbox's python) a child running the same program: the cell's fork?"""
    kernels = {p.pid: p for p in processes if "ipykernel_launcher" in commands([p]) and p.name() == "python"}
    return any(p.ppid() in kernels for p in kernels.values())


def _assert_all_end(processes: list[psutil.Process]) -> None:
    _, alive = psutil.wait_procs(processes, timeout=GONE)
    assert not alive, commands(alive)


def test_a_lab_server_killed_with_sigkill_leaves_no_process(tmp_path):
    server = lab_server(tmp_path)
    assert server.proc is not None
    before: list[psutil.Process] = []
    try:
        attempt = start_attempt(server)
        status, turn = play(server, attempt, 0, LEFT_BEHIND)
        assert status == 200, turn
        before = tree(server.proc.pid)
        _assert_pool_and_kernel(before)
        assert _sleeping_child(before), commands(before)
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=GONE)
        _assert_all_end(before[1:])
    finally:
        server.stop()
        kill_all(before)


def _graded_turns(db: Path) -> int:
    try:
        with sqlite3.connect(db) as c:
            return c.execute("select count(*) from turn where grade != '{}'").fetchone()[0]
    except sqlite3.Error:  # not made yet
        return 0


def _graded_and_pooled(run: subprocess.Popen, db: Path) -> list[psutil.Process]:
    """The run's process tree once a turn of it is graded and its grading pool is up."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        assert run.poll() is None, "the run ended before its first turn was graded"
        processes = tree(run.pid)
        if _graded_turns(db) and _grading_processes(processes):
            return processes
        time.sleep(0.2)
    raise AssertionError("the run graded no turn in time")


def test_a_run_killed_with_sigkill_leaves_no_process(tmp_path):
    db = tmp_path / "o.sqlite"
    argv = [sys.executable, "-m", "cibench_lab.cli", "--db", f"sqlite:///{db}", "run", "--player",
            "reference", "--tasks", TASK, "--run", "o", "--no-progress"]  # fmt: skip
    with open(tmp_path / "run.log", "wb") as log:
        run = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    before: list[psutil.Process] = []
    try:
        before = _graded_and_pooled(run, db)
        _assert_pool_and_kernel(before)
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=GONE)
        _assert_all_end(before[1:])
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        kill_all(before)
