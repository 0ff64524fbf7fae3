"""`cibench-lab db`: the results database's schema version.

``upgrade`` brings any database to this code's head (the only way for a non-SQLite
database, unless the server runs with ``CIBenchLabApp.db_auto_upgrade``); ``current``
prints where a database is; ``revision`` drafts a new migration (for developers).
"""

from __future__ import annotations

import argparse

from ..store import migrate
from ..store.db import default_url, open_engine
from . import add_command


def _url(args: argparse.Namespace) -> str:
    return args.db or default_url()  # main() resolved --database-url, --db and the variable


def cmd_upgrade(args: argparse.Namespace) -> int:
    engine = open_engine(_url(args))
    try:
        migrate.check(engine)  # a newer database or one that cannot be read: the one-line error
        start = migrate.upgrade(engine)
    finally:
        engine.dispose()
    where = migrate.where(engine)
    if start is None:
        print(f"{where}: at head {migrate.head()}, nothing to do")
    else:
        print(f"{where}: upgraded from {start} to {migrate.head()}")
    return 0


def cmd_current(args: argparse.Namespace) -> int:
    engine = open_engine(_url(args))
    try:
        rev, state = migrate.check(engine)
    finally:
        engine.dispose()
    note = "head" if rev == migrate.head() else f"head is {migrate.head()}: cibench-lab db upgrade"
    print(f"{state} ({note})")
    return 0


def cmd_revision(args: argparse.Namespace) -> int:
    from alembic import command

    engine = open_engine(_url(args))
    numbers = [int(s.revision) for s in migrate.scripts().walk_revisions() if s.revision.isdigit()]
    number = f"{max(numbers, default=0) + 1:04d}"  # after the highest: numbers may skip
    try:
        with engine.connect() as conn:
            command.revision(
                migrate.alembic_config(conn),
                message=args.message,
                autogenerate=args.autogenerate,
                rev_id=number,
            )
    finally:
        engine.dispose()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = add_command(sub, "db")
    dsub = db.add_subparsers(dest="sub", required=True)
    up = dsub.add_parser("upgrade", help="upgrade the database to this cibench-lab's schema (serialized)")
    cur = dsub.add_parser("current", help="print the database's revision and whether it is at head")
    rev = dsub.add_parser("revision", help="(developers) draft migrations/versions/NNNN_<message>.py")
    rev.add_argument("-m", "--message", required=True, help="what the revision changes")
    rev.add_argument("--autogenerate", action="store_true", help="draft operations from the models")
    for parser, fn in ((up, cmd_upgrade), (cur, cmd_current), (rev, cmd_revision)):
        parser.add_argument(
            "--database-url",
            metavar="URL",
            help="SQLAlchemy URL (default: the global --db, else CIBENCH_LAB_DATABASE_URL, else SQLite)",
        )
        parser.set_defaults(fn=fn)
