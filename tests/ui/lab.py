"""A real `jupyter lab` process and Debian's chromium, shared by the browser tests and bench/lab.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import psutil

LAB_SETTINGS = Path(__file__).resolve().parents[2] / "scripts" / "lab-settings"  # what scripts/play uses

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
    """`jupyter lab` on a free loopback port, its own root and results database.

    ``args`` are extra command-line options (e.g. ``--CIBenchLabApp.turn_cap=0``).
    """

    def __init__(self, root: Path, db: Path, config: Path | None = None, args: list[str] | None = None):
        self.port = _free_port()
        self.root, self.db, self.config = root, db, config
        self.args = list(args or [])
        self.proc: subprocess.Popen | None = None
        self.log = root.parent / "lab.log"
        self.orphans: list[psutil.Process] = []  # kernels of a server killed with SIGKILL

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
            "--LabApp.news_url=None",
            f"--LabApp.app_settings_dir={LAB_SETTINGS}",  # no "Jupyter news?" prompt over the page
            # the lab's own state per server: a theme or layout one test leaves is not the next one's
            f"--LabApp.user_settings_dir={self.root.parent / 'lab-user-settings'}",
            f"--LabApp.workspaces_dir={self.root.parent / 'lab-workspaces'}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            *([f"--config={self.config}"] if self.config else []),
            *self.args,
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
        """Stop the server's process group, then the kernels it started that outlived it, by PID
        (kernels run in their own sessions). After a SIGKILL (a test's crash) they are left
        running until the next stop, as a crashed server would leave them."""
        if not (self.proc and self.proc.poll() is None):
            stop_processes(self.orphans)
            self.orphans = []
            return
        try:
            spawned = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.Error:
            spawned = []
        os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        if sig == signal.SIGKILL:
            self.orphans += spawned
            return
        stop_processes(self.orphans + spawned)
        self.orphans = []


def configured_lab(tmp_path: Path, traits: dict) -> LabServer:
    """A started lab under ``tmp_path`` (its workspace and results database there) with these
    ``CIBenchLabApp`` traits; the caller kills it."""
    config = tmp_path / "lab_config.json"
    config.write_text(json.dumps({"CIBenchLabApp": traits}))
    root = tmp_path / "workspace"
    root.mkdir()
    server = LabServer(root, tmp_path / "results.sqlite", config)
    server.start()
    return server


def stop_processes(procs: list[psutil.Process], grace: float = 10) -> None:
    """Terminate the processes still alive among ``procs`` (each by its PID), then kill the rest."""
    alive = [p for p in procs if p.is_running()]
    for p in alive:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, left = psutil.wait_procs(alive, timeout=grace)
    for p in left:
        try:
            p.kill()
        except psutil.Error:
            pass


def launch_chromium(playwright):
    """Debian's chromium, headless (Playwright's own browser downloads are unreachable here)."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"browser tests need {CHROMIUM} (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


#: does the lab's saved layout (its default workspace, what a reload reads) hold a main-area
#: widget whose restorer name contains ``key``?
_SAVED = """async key => {
  const answer = await fetch('/lab/api/workspaces/default');
  if (!answer.ok) return false;
  const data = (await answer.json()).data || {};
  return JSON.stringify((data['layout-restorer:data'] || {}).main || {}).includes(key);
}"""


def wait_until_saved(page, key: str, timeout: float = 60_000) -> None:
    """Wait until the lab has saved a layout with ``key`` in its main area (the save is debounced:
    a reload before it reopens the layout before)."""
    page.wait_for_function(_SAVED, arg=key, polling=250, timeout=timeout)
