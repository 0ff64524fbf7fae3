"""The `cibench-lab` command: tasks and headless runs.

Each subcommand lives in its own module with a ``register(subparsers)`` function,
listed in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from pathlib import Path

from ..engine.errors import EngineError
from ..store.errors import StoreError

COMMANDS = ("tasks", "run", "report", "export", "db")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cibench-lab", description="Play, grade and benchmark CIBench tasks.")
    p.add_argument(
        "--task-dir",
        action="append",
        type=Path,
        help="task directory (repeatable; default: built-in + imported tasks)",
    )
    p.add_argument(
        "--db", help="SQLAlchemy URL of the results store (default: SQLite in the Jupyter data dir)"
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except (EngineError, StoreError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
