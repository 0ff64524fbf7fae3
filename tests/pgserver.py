"""A throwaway PostgreSQL cluster for tests: initdb in a temp dir, one server on a free port.

Debian's ``postgresql`` package provides the binaries (``scripts/test`` installs it). As root
the server runs as the ``postgres`` user (PostgreSQL refuses root). It is stopped by its
own PID: SIGINT (fast shutdown), then SIGKILL after a bounded wait.

``Cluster()`` trusts every local connection (the store tests); ``Cluster(password=...)`` asks
every connection, socket or TCP, for a scram-sha-256 password (a class's database: nothing
connects without one), the superuser's being ``password``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

START_TIMEOUT = 60.0
STOP_TIMEOUT = 30.0
SUPERUSER = "cibench"


def bin_dir() -> Path:
    """The newest installed PostgreSQL's bin folder (Debian keeps it off PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql (scripts/test does)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``with Cluster() as pg: pg.new_database()`` -> a URL of a fresh, empty database."""

    def __init__(self, password: str = ""):
        self.bin = bin_dir()
        self.password = password
        self.root = Path(tempfile.mkdtemp(prefix="cibench-pg-"))
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.user = pwd.getpwnam("postgres") if os.geteuid() == 0 else None

    def _run_as(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def __enter__(self) -> Cluster:
        data, sockets = self.root / "data", self.root / "run"
        sockets.mkdir()
        if self.user is not None:
            for path in (self.root, sockets):
                os.chown(path, self.user.pw_uid, self.user.pw_gid)
        initdb = [str(self.bin / "initdb"), "-D", str(data), "-U", SUPERUSER, *self._auth()]
        subprocess.run(
            [*initdb, "-E", "UTF8", "--no-sync"],
            check=True,
            capture_output=True,
            timeout=120,
            **self._run_as(),
        )
        server = [str(self.bin / "postgres"), "-D", str(data), "-p", str(self.port), "-k", str(sockets)]
        options = ["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=50"]
        with open(self.root / "server.log", "wb") as log:
            self.proc = subprocess.Popen([*server, *options], stdout=log, stderr=log, **self._run_as())
        self._wait_ready()
        return self

    def _auth(self) -> list[str]:
        """initdb's options: trust, or scram-sha-256 with the superuser's password in a file."""
        if not self.password:
            return ["--auth=trust"]
        pwfile = self.root / "superuser.pw"
        pwfile.write_text(self.password + "\n")
        pwfile.chmod(0o600)
        if self.user is not None:
            os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
        return ["--auth-local=scram-sha-256", "--auth-host=scram-sha-256", f"--pwfile={pwfile}"]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                psycopg.connect(self.dsn("postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.root / "server.log").read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"PostgreSQL did not start:\n{log}") from None
                time.sleep(0.1)

    def dsn(self, database: str, user: str = SUPERUSER, password: str = "") -> str:
        """A libpq connection string; the superuser's password unless another is given."""
        password = password or (self.password if user == SUPERUSER else "")
        secret = f" password={password}" if password else ""
        return f"host=127.0.0.1 port={self.port} dbname={database} user={user}{secret}"

    def url(self, database: str, user: str = SUPERUSER, password: str = "") -> str:
        password = password or (self.password if user == SUPERUSER else "")
        auth = f"{user}:{password}" if password else user
        return f"postgresql+psycopg://{auth}@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> None:
        with psycopg.connect(self.dsn(database), autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A fresh, empty database; returns its name."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        self.execute(f"CREATE DATABASE {name}")
        return name

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT: fast shutdown (roll back, close sessions)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_TIMEOUT)
        shutil.rmtree(self.root, ignore_errors=True)
