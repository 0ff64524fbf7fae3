"""The grading pool dies with the process that owns it, SIGKILL included (issue 26 #8).

A process that owns a real :class:`~cibench_lab.grading.pool.Grader` (as the lab server and
``run`` do) starts its pool — forkserver, resource tracker, two grading processes — and is then
killed with SIGKILL: every process of its tree is gone within a bounded wait.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil

import cibench_lab

OWNER = """
import sys
from cibench_lab.grading.pool import Grader
grader = Grader(workers=2)
futures = [grader.processes().submit(pow, 2, 10) for _ in range(4)]
assert [f.result(timeout=120) for f in futures] == [1024] * 4
print('ready', flush=True)
sys.stdin.read()
"""


def _tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def test_the_grading_pool_dies_with_its_owner_killed_by_sigkill():
    env = {**os.environ, "PYTHONPATH": str(Path(cibench_lab.__file__).resolve().parents[1])}
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    tree: list[psutil.Process] = []
    try:
        assert owner.stdout is not None and owner.stdout.readline() == "ready\n"
        tree = _tree(owner.pid)
        names = " ".join(" ".join(p.cmdline()) for p in tree)
        assert "forkserver" in names and "resource_tracker" in names and len(tree) >= 5, names
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=30)
        _, alive = psutil.wait_procs(tree[1:], timeout=30)
        assert not alive, [(p.pid, p.cmdline()) for p in alive]
    finally:
        if owner.poll() is None:
            owner.kill()
        for p in tree[1:]:
            try:
                p.kill()
            except psutil.Error:
                continue
