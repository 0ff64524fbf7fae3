"""A Qwen item's executable-rate process runs under the task kernels' limits as a kernel does: a fork
bomb in an item is bounded — also when the server runs as root, whom RLIMIT_NPROC exempts (a kernel
then gets a pids cgroup of its own, and so does an item) — and the item is not executable, in one line."""

from __future__ import annotations

from cibench_lab.benchmarks.qwen.exec import QwenExecutor
from cibench_lab.grading.qwen.execrate import ExecItem, prepare
from cibench_lab.kernels.limits import LIMITS_VAR

#: sleeping children (no CPU burnt): the 65th fork fails
FORK_BOMB = (
    "import os, time\nkids = []\ntry:\n    for _ in range(200):\n        pid = os.fork()\n"
    "        if pid == 0:\n            time.sleep(30); os._exit(0)\n        kids.append(pid)\n"
    "finally:\n    [os.kill(k, 9) for k in kids]; [os.waitpid(k, 0) for k in kids]"
)


def test_a_fork_bomb_in_an_item_is_bounded(monkeypatch):
    monkeypatch.setenv(LIMITS_VAR, "64,4096,16,8")
    run = QwenExecutor(None)
    bombed = run(ExecItem(0, "general", prepare(FORK_BOMB, "q", []), None))
    assert not bombed.executable and bombed.error.startswith("BlockingIOError"), bombed
    assert "\n" not in bombed.error
    after = run(ExecItem(1, "general", prepare("print(6 * 7)", "q", []), None))
    assert after.executable, after.error
