"""The `cibench-lab` command: tasks and headless runs.

Each subcommand lives in its own module with a ``register(subparsers)`` function,
listed in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import sys
from pathlib import Path

from sqlalchemy.exc import DBAPIError

from ..engine.errors import EngineError
from ..models.redact import redact, redact_logs
from ..store import default_url
from ..store.errors import StoreError, first_line, shown, write_fault
from ..tasks.errors import TaskError
from .common import database_url

COMMANDS = ("tasks", "run", "report", "export", "db", "classroom", "qwen")  # modules; classroom is `class`


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cibench-lab", description="Play, grade and benchmark CIBench tasks.")
    p.add_argument(
        "--task-dir",
        action="append",
        type=Path,
        help="task directory (repeatable; default: built-in + imported tasks)",
    )
    p.add_argument(
        "--db",
        help="SQLAlchemy URL of the results store (default: CIBENCH_LAB_DATABASE_URL if set, "
        "else SQLite in the Jupyter data dir)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; an expected failure prints ``error: <one line>`` and exits 2."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    redact_logs()
    args = build_parser().parse_args(argv)
    args.db = database_url(args)  # every command reads args.db: one choice, the server's
    try:
        return args.fn(args)
    except (EngineError, StoreError, TaskError) as err:
        return fail(str(err))
    except DBAPIError as err:
        return fail(_database_fault(err, args.db))
    except OSError as err:
        return fail(os_error(err))


def fail(message: str) -> int:
    print(f"error: {redact(message)}", file=sys.stderr)
    return 2


def os_error(err: OSError) -> str:
    """A file system error in one line: the path, the system's reason and, where known, the fix."""
    where = f"{err.filename}: " if err.filename else ""
    text = f"{where}{err.strerror or err}"
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{text}; free space on its disk"
    if err.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return f"{text}; make it writable or choose another folder"
    return text


def _database_fault(err: DBAPIError, url: str | None) -> str:
    """A database error a command met after opening the store, in one line naming the database."""
    try:
        url = url or default_url()
    except StoreError as no_folder:
        return str(no_folder)
    fault = write_fault(err, url)
    return str(fault) if fault else f"the results database at {shown(url)} failed: {first_line(err)}"


if __name__ == "__main__":
    sys.exit(main())
