"""Engine and sessions: SQLite by default, any SQLAlchemy URL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from .tables import Base


def default_url() -> str:
    """``sqlite:///<jupyter data dir>/cibench_lab/results.sqlite``."""
    from jupyter_core.paths import jupyter_data_dir

    folder = Path(jupyter_data_dir()) / "cibench_lab"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'results.sqlite'}"


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cur.execute("PRAGMA synchronous=FULL")  # a committed turn survives kill -9
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


class Store:
    """Owns the engine; ``with store.session() as s:`` is one transaction."""

    def __init__(self, url: str | None = None):
        self.url = url or default_url()
        self.engine = create_engine(self.url, future=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        Base.metadata.create_all(self.engine)
        self._factory = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._factory.begin() as s:
            yield s

    def dispose(self) -> None:
        self.engine.dispose()
