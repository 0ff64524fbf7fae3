"""One upgrader at a time: the connection a check-and-upgrade runs on, under a lock.

SQLite: an exclusive transaction (other writers wait in their busy timeout).
PostgreSQL: a transaction-scoped advisory lock, released at commit or rollback.
Other databases: a plain transaction (no cross-process lock).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

# pg_advisory_xact_lock key: "cibench" in ASCII, one key for every cibench-lab database
PG_LOCK_KEY = 0x63696265_6E6368
PG_LOCK_TIMEOUT = "120s"


@contextmanager
def upgrade_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the upgrade lock; commits on success."""
    name = engine.dialect.name
    if name == "sqlite":
        with _sqlite_exclusive(engine) as conn:
            yield conn
    elif name == "postgresql":
        with engine.begin() as conn:
            conn.execute(text(f"SET LOCAL lock_timeout = '{PG_LOCK_TIMEOUT}'"))
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_LOCK_KEY})
            yield conn
    else:
        with engine.begin() as conn:
            yield conn


@contextmanager
def _sqlite_exclusive(engine: Engine) -> Iterator[Connection]:
    # pysqlite's own transaction handling issues no BEGIN before DDL; in AUTOCOMMIT the
    # driver stays out of the way and the transaction is exactly the one written here.
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("BEGIN EXCLUSIVE")
        try:
            yield conn
        except BaseException:
            conn.exec_driver_sql("ROLLBACK")
            raise
        conn.exec_driver_sql("COMMIT")
