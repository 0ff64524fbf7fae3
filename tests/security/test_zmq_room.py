"""A busy server's kernels share one ZMQ context: its 1,023-socket default must not be the limit.

Two loaded soak runs (bench/README.md) met ``ZMQError: Too many open files`` near the 200th Start
with 26 descriptors open: the context's socket count, not the process's file limit.  Cost: < 1 s
(a context and 1,200 unconnected sockets, in a child process with its own file limit).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.fast

OPEN_SOCKETS = """
import resource, sys, zmq
from cibench_lab.lab.sockets import socket_room
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
ctx = zmq.Context()
if sys.argv[1] == "room":
    print("limit", socket_room(ctx))
sockets = []
try:
    for _ in range(1200):
        sockets.append(ctx.socket(zmq.REQ))
    print("opened", len(sockets))
except zmq.ZMQError as e:
    print("refused at", len(sockets), e)
for s in sockets:
    s.close(linger=0)
ctx.term()
"""


def _open(mode: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", OPEN_SOCKETS, mode], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_default_context_refuses_past_its_limit():
    """The fault itself: without room the 1,024th socket is refused (why the server sets it)."""
    assert "refused at 1023" in _open("default")


def test_server_context_has_room_for_many_kernels():
    out = _open("room")
    assert "limit 4096" in out
    assert "opened 1200" in out


def test_lab_server_widens_its_kernel_context(jp_serverapp):
    """The lab's kernel manager context is widened as the extension starts (before any kernel)."""
    import zmq

    assert jp_serverapp.kernel_manager.context.get(zmq.MAX_SOCKETS) >= 4096
