"""A throwaway JupyterHub for tests: the teacher's config, one PostgreSQL, servers for a class.

The hub runs ``docs/jupyterhub_config.example.py`` (what docs/teach/reference.md shows) from a config
of this test's own that adds only its free ports (hub, proxy API, proxy public), the test's
environment (the worktree's code and kernelspec) and a class folder in a temp dir; the config
finds the proxy ``scripts/test`` installed into ``.venv/node`` itself. Every user's server records into
one database of a :class:`~pgserver.Cluster` that asks every connection for a password, each as
its own login role (:func:`grant_class`), which row-level security limits to its user's rows.

Everything started is stopped by its PID: the hub (SIGTERM: it stops the servers and the proxy
it started), then whatever of its descendants — proxy, single-user servers, their kernels —
still runs, each by its PID, within bounded waits.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil
from pgserver import Cluster, free_port
from ui.lab import stop_processes

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "docs" / "jupyterhub_config.example.py"
PASSWORD = "class-password-" + secrets.token_hex(4)  # the class's shared login password
STUDENTS = ["student1", "student2"]
INSTRUCTORS = ["teacher"]
CLASS = "demo"  # the example config's class (its group cibench-class-demo)
USERS = [*STUDENTS, *INSTRUCTORS]
OWNER = "cibench_owner"  # owns the class database's tables (migrates it)
DATABASE = "cibench_class"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
#: the test's environment the single-user servers keep (the worktree's code, kernelspec, Python)
TEST_ENV = ["PYTHONPATH", "JUPYTER_PATH", "CIBENCH_LAB_KERNEL_PREFIX", "CIBENCH_LAB_KERNEL_PYTHON"]


def check_proxy() -> None:
    """configurable-http-proxy is where the config looks: ``scripts/test``'s copy in ``.venv/node``
    (beside the hub's Python, which is this test's), else on PATH."""
    local = Path(sys.prefix) / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
    if not local.exists() and not shutil.which("configurable-http-proxy"):
        raise RuntimeError(
            "the hub test needs configurable-http-proxy: "
            "npm install --prefix .venv/node configurable-http-proxy (scripts/test does)"
        )


def role_of(user: str) -> str:
    return f"cibench_u_{user}"


def class_database(pg: Cluster) -> str:
    """The class's database, owned by its own role and migrated by it (``cibench-lab db upgrade``,
    as an admin runs it once); returns the owner's URL. Nobody else may connect to it yet."""
    password = secrets.token_urlsafe(18)
    pg.execute(f"CREATE ROLE {OWNER} LOGIN CREATEROLE PASSWORD '{password}'")  # it makes the logins
    pg.execute(f"CREATE DATABASE {DATABASE} OWNER {OWNER}")
    pg.execute(f"REVOKE ALL ON DATABASE {DATABASE} FROM PUBLIC")
    url = pg.url(DATABASE, user=OWNER, password=password)
    upgrade = [sys.executable, "-m", "cibench_lab.cli", "db", "upgrade", "--database-url", url]
    done = subprocess.run(upgrade, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return url


def grant_class(owner_url: str, users: list[str], class_dir: Path) -> dict[str, str]:
    """Each user's own login role on the class database, made as the guide makes it (``cibench-lab
    class grant``: students members of the class, teachers its instructors), its URL written where
    the hub config reads it (``<class dir>/db/<user>.url``); returns the URLs."""
    folder = class_dir / "db"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    urls = {}
    for user in users:
        path = folder / f"{user}.url"
        part = ["--instructor" if user in INSTRUCTORS else "--member", CLASS]
        grant = ["class", "grant", "--database-url", owner_url, user, *part, "--url-file", str(path)]
        done = subprocess.run(
            [sys.executable, "-m", "cibench_lab.cli", *grant], capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stdout == "", done.stderr
        urls[user] = path.read_text().strip()
    return urls


class Hub:
    """JupyterHub on free loopback ports with the class folder ``class_dir``; ``url`` is the proxy's
    public address (the one users open)."""

    def __init__(self, class_dir: Path):
        self.dir = class_dir
        self.port, self.hub_port, self.api_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = class_dir / "jupyterhub.log"
        self.proc: subprocess.Popen | None = None

    def _config(self) -> Path:
        """This test's config: the teacher's file, then only what differs on a test machine (the
        lab's settings, the class's task folder, come from the teacher's file as they are)."""
        check_proxy()
        keep = [name for name in TEST_ENV if name in os.environ]
        path = self.dir / "jupyterhub_config.py"
        path.write_text(
            "c = get_config()  # noqa: F821\n"
            f"load_subconfig({str(EXAMPLE)!r})  # noqa: F821\n"
            f"c.JupyterHub.bind_url = {self.url!r}\n"
            f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{self.hub_port}'\n"
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{self.api_port}'\n"
            f"c.Spawner.env_keep = [*c.Spawner.env_keep, *{keep!r}]\n"
        )
        return path

    def start(self) -> None:
        cmd = [sys.executable, "-m", "jupyterhub", "-f", str(self._config())]
        env = {**os.environ, "CIBENCH_CLASS_DIR": str(self.dir), "CIBENCH_CLASS_PASSWORD": PASSWORD}
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.dir,
            env=env,
            stdout=self.log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyterhub exited: {self.tail()}")
            try:
                urllib.request.urlopen(f"{self.url}/hub/api", timeout=2)
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"jupyterhub did not start: {self.tail()}")

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def server_pid(self, user: str) -> int:
        """The PID of ``user``'s single-user server (a child of the hub)."""
        assert self.proc is not None
        for child in psutil.Process(self.proc.pid).children():
            if any("jupyterhub-singleuser" in part for part in child.cmdline()):
                if child.environ().get("JUPYTERHUB_USER") == user:
                    return child.pid
        raise LookupError(f"no single-user server of {user} runs")

    def _proxy(self) -> list[psutil.Process]:
        """The proxy the hub started, by the PID file the config names, while it still runs."""
        try:
            proc = psutil.Process(int((self.dir / "jupyterhub-proxy.pid").read_text()))
            if any("configurable-http-proxy" in part for part in proc.cmdline()):
                return [proc]
        except (OSError, ValueError, psutil.Error):
            pass
        return []

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is not None:  # a hub that exited (e.g. its port taken) leaves its proxy
            stop_processes(self._proxy())
            return
        try:
            started = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.Error:
            started = []
        self.proc.send_signal(signal.SIGTERM)  # the hub stops its servers and its proxy
        try:
            self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=STOP_TIMEOUT)
        stop_processes(started)


class Classroom:
    """``with Classroom() as room``: PostgreSQL with scram passwords, the class database migrated,
    a login role per user, and the hub started on it; all stopped on exit."""

    def __enter__(self) -> Classroom:
        self.dir = Path(tempfile.mkdtemp(prefix="cibench-class-"))
        self.pg = Cluster(password=secrets.token_urlsafe(18)).__enter__()
        try:
            self.owner_url = class_database(self.pg)
            self.urls = grant_class(self.owner_url, USERS, self.dir)
            self.hub = Hub(self.dir)
            self.hub.start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        hub = getattr(self, "hub", None)
        if hub is not None:
            hub.stop()
        self.pg.__exit__()
        shutil.rmtree(self.dir, ignore_errors=True)
