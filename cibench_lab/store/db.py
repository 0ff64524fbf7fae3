"""Engine and sessions: SQLite by default, any SQLAlchemy URL."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from .errors import StoreError, first_line, shown, write_fault
from .migrate import ensure_schema

#: the results database's URL when no option names one: how a hub hands each server its own
#: (docs/teach/reference.md); task kernels never inherit it
DATABASE_URL_VAR = "CIBENCH_LAB_DATABASE_URL"


def configured_url(explicit: str | None = None) -> str | None:
    """The results database every entry point (server and each CLI command) uses: ``explicit``
    (an option), else ``CIBENCH_LAB_DATABASE_URL``, else None (the SQLite default)."""
    return explicit or os.environ.get(DATABASE_URL_VAR) or None


def default_url() -> str:
    """``sqlite:///<jupyter data dir>/cibench_lab/results.sqlite``."""
    from jupyter_core.paths import jupyter_data_dir

    folder = Path(jupyter_data_dir()) / "cibench_lab"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(f"cannot create the results folder {folder}: {err.strerror or err}") from None
    return f"sqlite:///{folder / 'results.sqlite'}"


#: how long a connection keeps retrying the switch of a new file to WAL (as the busy timeout)
WAL_SWITCH_SECONDS = 10.0


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA busy_timeout=10000")  # first: the others wait for a lock held elsewhere
    _switch_to_wal(cur)  # readers never block the writer
    cur.execute("PRAGMA synchronous=FULL")  # a committed turn survives kill -9
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _switch_to_wal(cur) -> None:
    """``PRAGMA journal_mode=WAL``, retried while another process switches the same new file.

    Two connections that both read a new file and both escalate to switch it deadlock; SQLite
    answers one of them 'database is locked' at once, without its busy timeout. Retried, that
    one finds the file in WAL already (a read)."""
    deadline = time.monotonic() + WAL_SWITCH_SECONDS
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def open_engine(url: str) -> Engine:
    """The engine for ``url`` (SQLite: WAL, full sync, foreign keys, a busy timeout)."""
    try:
        engine = create_engine(url)
    except ArgumentError as err:
        raise StoreError(f"cannot use the results database URL {shown(url)}: {err}") from None
    except ImportError as err:  # the URL's driver is not installed
        hint = " (pip install 'cibench_lab[postgresql]')" if url.startswith("postgresql+psycopg") else ""
        raise StoreError(f"cannot use the results database URL {shown(url)}: {err}{hint}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _check_folder(engine: Engine) -> None:
    """A SQLite file's folder must exist (SQLite would only say 'unable to open database file')."""
    name = engine.url.database
    if engine.dialect.name != "sqlite" or not name or name == ":memory:" or name.startswith("file:"):
        return
    folder = Path(name).parent
    if not folder.is_dir():
        raise StoreError(
            f"the results database at {shown(str(engine.url))} cannot be opened: its folder {folder} "
            "does not exist; create it or choose another database"
        )


class Store:
    """Owns the engine; ``with store.session() as s:`` is one transaction.

    Opening brings the schema to head (see :func:`.migrate.ensure_schema`): a SQLite
    database always, another only with ``auto_upgrade``; else StoreError."""

    def __init__(self, url: str | None = None, *, auto_upgrade: bool = False):
        self.url = url or default_url()
        self.engine = open_engine(self.url)
        try:
            _check_folder(self.engine)
            ensure_schema(self.engine, auto_upgrade)
        except BaseException:
            self.engine.dispose()
            raise
        self._factory = sessionmaker(self.engine, expire_on_commit=False)

    @property
    def shown_url(self) -> str:
        """The URL as logs and messages show it (no password)."""
        return shown(self.url)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._factory.begin() as s:
            yield s

    def check_writable(self) -> None:
        """StoreError (one line) unless the database takes a write: a no-op update, rolled back.

        For whoever will write (the server, a run); reading a read-only database is fine."""
        try:
            with self.engine.connect() as conn, conn.begin() as tx:
                if self.engine.dialect.name == "postgresql" and not _may(conn, "alembic_version", "UPDATE"):
                    self._check_role_writes(conn)  # a class database's login role (store/grants.py)
                else:
                    conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
                tx.rollback()
        except DBAPIError as err:
            fault = write_fault(err, self.url)
            raise fault or StoreError(
                f"the results database at {self.shown_url} cannot be written: {first_line(err)}"
            ) from None

    def _check_role_writes(self, conn) -> None:
        """A PostgreSQL role that may not touch the schema version (a class database's login role)
        writes if its session is not read-only and it may insert attempts."""
        if conn.scalar(text("SHOW transaction_read_only")) == "on":
            raise StoreError(f"the results database at {self.shown_url} cannot be written: it is read-only")
        if not _may(conn, "attempt", "INSERT"):
            user = conn.scalar(text("SELECT current_user"))
            raise StoreError(
                f"the results database at {self.shown_url} cannot be written: permission denied for "
                f"role {user} to add attempts; the database's owner grants it (`cibench-lab class grant`)"
            )

    def dispose(self) -> None:
        self.engine.dispose()


def _may(conn, table: str, privilege: str) -> bool:
    return bool(conn.scalar(text("SELECT has_table_privilege(:t, :p)"), {"t": table, "p": privilege}))
