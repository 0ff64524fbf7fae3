"""Browser tests: a real `jupyter lab` process and Debian's chromium driven by Playwright."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CIBENCH_LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
TOKEN = "cibench-ui-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    def __init__(self, root: Path, db: Path, config: Path | None = None):
        self.port = _free_port()
        self.root, self.db, self.config = root, db, config
        self.proc: subprocess.Popen | None = None
        self.log = root.parent / "lab.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            f"--port={self.port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.allow_root=True",
            f"--CIBenchLabApp.database_url=sqlite:///{self.db}",
            # the lab's own state per server: a theme or layout one test leaves is not the next one's
            f"--LabApp.user_settings_dir={self.root.parent / 'lab-user-settings'}",
            f"--LabApp.workspaces_dir={self.root.parent / 'lab-workspaces'}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            *([f"--config={self.config}"] if self.config else []),
        ]
        self.proc = subprocess.Popen(
            cmd, stdout=self.log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited: {self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/api/status?token={TOKEN}", timeout=2)
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"jupyter lab did not start: {self.log.read_text()[-3000:]}")

    def kill(self, sig=signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


@pytest.fixture
def lab_server(tmp_path):
    root = tmp_path / "workspace"
    root.mkdir()
    server = LabServer(root, tmp_path / "results.sqlite")
    server.start()
    yield server
    server.kill()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"browser tests need {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    """Browser tests need no server-side event loop (pytest-jupyter's autouse loop would
    be picked up, and later closed under, Playwright's sync driver)."""
    yield None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    """No in-process Jupyter server here: the browser tests run `jupyter lab` as a process."""
    yield
