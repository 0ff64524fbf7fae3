"""A fork bomb and a memory bomb played as turns through a real lab server (issue 26 #8): the
sandbox's limits (the server's ``kernel_max_processes``, ``kernel_memory_mb``) bound them, the
server and another attempt's kernel keep answering, and the turn is recorded as what happened,
without a traceback in the server's log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_two_servers import OtherServer

from security.labprocess import lab_server, play, start_attempt

BOMBS = {
    # forks until the 65th fails; the children sleep (no CPU burnt) and are never waited for
    "fork bomb": (
        "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(20); os._exit(0)",
        "BlockingIOError",
    ),
    # 256 MiB more each time until the address space (2 GiB) is full; never touched, so never resident
    "memory bomb": ("blocks = []\nwhile True:\n    blocks.append(bytearray(256 * 2**20))", "MemoryError"),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[OtherServer]:
    lab = lab_server(tmp_path_factory.mktemp("bombs"), kernel_max_processes=64, kernel_memory_mb=2048)
    yield lab
    lab.stop()


@pytest.fixture(scope="module")
def bystander(server) -> dict:
    """Another attempt, on its own kernel."""
    return start_attempt(server)


@pytest.mark.parametrize("bomb", list(BOMBS))
def test_a_bomb_played_in_the_lab_is_recorded_as_what_happened(server, bystander, bomb):
    code, ename = BOMBS[bomb]
    attempt = start_attempt(server)
    status, turn = play(server, attempt, 0, code)
    assert status == 200, turn
    assert isinstance(turn, dict) and turn["grade"]["detail"] == f"raised an error ({ename})", turn
    assert server.call("GET", "/api/status")[0] == 200
    status, fine = play(server, bystander, 0, "probe = str(6 * 7)")
    assert status == 200 and isinstance(fine, dict) and fine["grade"]["passed"] is True, fine
    assert "Traceback" not in server.log.read_text()
