"""Schema versions (Alembic, revisions in ``cibench_lab/migrations``) and the start-up check.

``ensure_schema`` is what every start runs: nothing at head; else an upgrade under the
upgrade lock (SQLite always; other databases only when asked), or a one-line StoreError.
A database made before migrations (our tables, no ``alembic_version``) is stamped as
the baseline first, then upgraded.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect
from sqlalchemy.exc import DBAPIError

from .errors import NeedsUpgrade, StoreError, first_line, write_fault
from .locks import upgrade_lock

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"
BASELINE = "0001"
BASELINE_TABLES = frozenset({"participant", "run", "attempt", "step", "turn", "event"})


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built in code (no alembic.ini): env.py uses ``connection``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


@cache
def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def head() -> str:
    revision = scripts().get_current_head()
    assert revision is not None, "cibench_lab/migrations has no revisions"
    return revision


def known(revision: str) -> bool:
    return any(s.revision == revision for s in scripts().walk_revisions())


def stored_revision(conn: Connection) -> str | None:
    """The revision recorded in the database (None: no ``alembic_version``)."""
    return MigrationContext.configure(conn).get_current_revision()


def describe(conn: Connection) -> str:
    """The database's revision for messages: a revision id, 'unversioned' or 'empty'."""
    rev = stored_revision(conn)
    if rev is not None:
        return rev
    return "unversioned (made before migrations)" if _our_tables(conn) else "empty"


def _our_tables(conn: Connection) -> frozenset[str]:
    return BASELINE_TABLES & set(inspect(conn).get_table_names())


def where(engine: Engine) -> str:
    """The engine's URL as messages show it (no password)."""
    return engine.url.render_as_string(hide_password=True)


def _newer(engine: Engine, rev: str) -> StoreError:
    return StoreError(
        f"the results database at {where(engine)} is at revision {rev}, newer than this cibench-lab "
        f"(head {head()}): upgrade cibench-lab"
    )


def _unusable(engine: Engine, err: DBAPIError, doing: str) -> StoreError:
    """The driver's reason in one line; a read-only file or folder, a denied permission or a full
    disk is 'cannot be written' (with the fix) whether it showed when opening or when upgrading."""
    fault = write_fault(err, where(engine))
    if fault is not None:
        return fault
    return StoreError(f"the results database at {where(engine)} cannot be {doing}: {first_line(err)}")


def check(engine: Engine) -> tuple[str | None, str]:
    """The stored revision and :func:`describe`'s word for it, read without a lock.

    StoreError when the database cannot be read or is newer than this code."""
    try:
        with engine.connect() as conn:
            rev = stored_revision(conn)
            state = rev or describe(conn)
    except DBAPIError as err:
        raise _unusable(engine, err, "opened") from None
    if rev is not None and not known(rev):
        raise _newer(engine, rev)
    return rev, state


def upgrade(engine: Engine) -> str | None:
    """Upgrade to head under the upgrade lock: the state it started from, None when at head."""
    try:
        with upgrade_lock(engine) as conn:
            return _upgrade_locked(engine, conn)
    except DBAPIError as err:
        raise _unusable(engine, err, "written") from None


def _upgrade_locked(engine: Engine, conn: Connection) -> str | None:
    rev = stored_revision(conn)
    if rev == head():
        return None
    if rev is not None and not known(rev):
        raise _newer(engine, rev)
    start = describe(conn)
    if rev is None:
        _stamp_made_before(engine, conn)
    command.upgrade(alembic_config(conn), "head")
    return start


def _stamp_made_before(engine: Engine, conn: Connection) -> None:
    """A database made by create_all before migrations has exactly the baseline's tables."""
    tables = _our_tables(conn)
    if tables == BASELINE_TABLES:
        MigrationContext.configure(conn).stamp(scripts(), BASELINE)
    elif tables:
        raise StoreError(
            f"the results database at {where(engine)} has some of cibench-lab's tables "
            f"({', '.join(sorted(tables))}) but no revision: not a database cibench-lab can upgrade"
        )


def ensure_schema(engine: Engine, auto_upgrade: bool = False) -> None:
    """What every start runs: nothing at head; SQLite (or ``auto_upgrade``) upgrades; else refuse."""
    rev, state = check(engine)
    if rev == head():
        return
    if engine.dialect.name != "sqlite" and not auto_upgrade:
        raise NeedsUpgrade(
            f"the results database at {where(engine)} is at revision {state}, this cibench-lab needs "
            f"{head()}: run `cibench-lab db upgrade --database-url {where(engine)}`"
        )
    upgrade(engine)
