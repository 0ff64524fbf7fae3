"""The sandbox's system-call filter: a kernel makes no link, no device node, traces nothing.

A link in an attempt folder would lead the server's file routes out of it (issue 26 #1); the
filter refuses to make one, whatever the cell tries (one sandboxed kernel for the module).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cibench_lab.kernels import seccomp
from cibench_lab.kernels.executor import KernelExecutor

ATTEMPTS = {
    "symlink to /": "os.symlink('/', 'root')",
    "symlink to the environment": "os.symlink('/proc/self/environ', 'env.txt')",
    "symlinkat": "os.symlink('/', 'root2', dir_fd=os.open('.', os.O_RDONLY))",
    "hard link": "open('mine.txt', 'w').close(); os.link('mine.txt', 'hard.txt')",
    "fifo by mknod": "os.mknod('fifo', 0o600 | stat.S_IFIFO)",
    "ptrace": "ptrace(0, 0)",  # PTRACE_TRACEME: allowed to any process without the filter
    "keyctl": "keyctl(0, -3)",  # KEYCTL_GET_KEYRING_ID of the session keyring
    "unshare": "unshare(0x10000000)",  # CLONE_NEWUSER
}
PROBE = """
import ctypes, errno, json, os, stat
libc = ctypes.CDLL(None, use_errno=True)
def _call(number):
    def call(*args):
        if libc.syscall(number, *args) == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return call
ptrace, keyctl, unshare = _call(101), _call(250), _call(272)  # x86_64
result = {}
for name, code in ATTEMPTS.items():
    try:
        exec(code)
        result[name] = 'made'
    except OSError as err:
        result[name] = errno.errorcode.get(err.errno, str(err.errno))
result['links left'] = [n for n in os.listdir('.') if os.path.islink(n) or n == 'hard.txt']
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory) -> Iterator[tuple[asyncio.AbstractEventLoop, KernelExecutor, Path]]:
    folder = tmp_path_factory.mktemp("seccomp")
    loop = asyncio.new_event_loop()
    executor = KernelExecutor(folder, timeout=60)
    loop.run_until_complete(executor.start())
    yield loop, executor, folder
    loop.run_until_complete(executor.shutdown())
    loop.close()


def test_a_kernel_cell_makes_no_link_no_node_and_traces_nothing(kernel):
    loop, executor, folder = kernel
    ex = loop.run_until_complete(executor.run(f"ATTEMPTS = {ATTEMPTS!r}\n{PROBE}"))
    assert not ex.error, ex.outputs
    result = json.loads(ex.outputs[0]["text"])
    assert result.pop("links left") == []
    assert result == dict.fromkeys(ATTEMPTS, "EPERM")
    assert not [p for p in folder.iterdir() if p.is_symlink() or p.name == "hard.txt"]


def test_the_kernel_still_forks_threads_and_writes_files(kernel):
    loop, executor, _ = kernel
    code = (
        "import subprocess, threading, sys\n"
        "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
        "open('data.csv', 'w').write('a\\n1\\n')\n"
        "print(subprocess.run([sys.executable, '-c', 'print(6*7)'], capture_output=True, text=True).stdout)"
    )
    ex = loop.run_until_complete(executor.run(code))
    assert not ex.error and "42" in ex.outputs[0]["text"], ex.outputs


@pytest.mark.fast
def test_the_filter_is_compiled_once_and_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = seccomp.filter_file()
    assert first.parent == tmp_path / "cibench-lab" and first.stat().st_size > 0
    stamp = first.stat().st_mtime_ns
    assert seccomp.filter_file() == first and first.stat().st_mtime_ns == stamp
