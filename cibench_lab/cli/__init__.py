"""The `cibench-lab` command: tasks and headless runs.

Each subcommand lives in its own module with a ``register(subparsers)`` function,
listed in ``COMMANDS``: this package's own, then each benchmark's, which a benchmark declares as an
entry point (group ``cibench_lab.commands``: the command's name = its module), found without
importing it.
"""

from __future__ import annotations

import sys

# jsonschema (through nbformat) imports the optional IRI checker ``rfc3987_syntax`` when it is
# installed (jupyter-events asks for it), and that module compiles a grammar at import: 1.5-4 s of
# every command's start. No command checks the "iri" format, so the CLI does without it (jsonschema
# then skips that format). Set before anything imports jsonschema; a process that already imported
# it (a test calling main()) keeps it.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

import argparse
import errno
import importlib
import logging
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.exc import DBAPIError

#: each command: the module that registers it and its line in ``cibench-lab --help``
COMMANDS = {
    "tasks": ("tasks", "list, inspect, import, verify, lint, build and make tasks"),
    "run": ("run", "play tasks headlessly and print CIBench's metrics"),
    "report": ("report", "CIBench's metrics per run, split and library, and the leaderboard"),
    "export": (
        "export",
        "write attempts, steps, turns and events (csv, jsonl), transcripts, or OpenCompass's format",
    ),
    "db": ("db", "the results database's schema: upgrade it, show its revision"),
    "class": ("classroom", "a class's PostgreSQL database: one login role per user"),
    "kernel-env": ("kernel_env", "install the pinned environment task kernels run, and its kernelspec"),
}
#: where a benchmark declares its commands (pyproject.toml's entry points)
COMMAND_GROUP = "cibench_lab.commands"


def benchmark_commands() -> dict[str, tuple[str, str]]:
    """Each command a benchmark adds: its module (in this package) and its line in ``--help``, the
    first line of the module's docstring, read from its source (importing it would cost the start
    what its command needs)."""
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    found: dict[str, tuple[str, str]] = {}
    for point in entry_points(group=COMMAND_GROUP):
        spec = find_spec(point.value)
        if spec is None or spec.origin is None or not point.value.startswith(f"{__name__}."):
            continue  # a module that is not here (an older install's metadata): no command
        found[point.name] = (point.value.removeprefix(f"{__name__}."), _first_doc_line(Path(spec.origin)))
    return found


def _first_doc_line(source: Path) -> str:
    import ast

    doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0].rstrip(".") if doc else ""


COMMANDS.update(benchmark_commands())
GLOBAL_VALUES = ("--task-dir", "--db")  # the options before the command that take a value


def add_command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str
) -> argparse.ArgumentParser:
    """The parser of command ``name``, with its line of ``COMMANDS``."""
    return sub.add_parser(name, help=COMMANDS[name][1])


def chosen_command(argv: list[str]) -> str | None:
    """The command ``argv`` names, when plain to see (only the exact global options before it);
    else None. Only its module is then imported: a command's start skips the others' imports."""
    tokens = iter(argv)
    for token in tokens:
        if token in GLOBAL_VALUES:
            next(tokens, None)
        elif token.startswith(tuple(f"{name}=" for name in GLOBAL_VALUES)):
            continue
        else:
            return token if token in COMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the command it names is registered (all when unclear)."""
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
    picked = chosen_command(argv) if argv is not None else None
    if argv is not None and not picked and not set(argv) & COMMANDS.keys():
        for name in COMMANDS:  # no command at all: the line ends in help or a usage error
            add_command(sub, name)
        return p
    for module, _ in [COMMANDS[picked]] if picked else COMMANDS.values():
        importlib.import_module(f"{__name__}.{module}").register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand; an expected failure prints ``error: <one line>`` and exits 2."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)  # help and usage errors end here, before the imports below
    return run_command(args)


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command; an expected failure is one line (``fail``)."""
    from sqlalchemy.exc import DBAPIError

    from ..errors import EngineError
    from ..models.redact import redact_logs
    from ..store.errors import StoreError
    from ..tasks.errors import TaskError
    from .common import database_url

    redact_logs()
    args.db = database_url(args)  # every command reads args.db: one choice, the server's
    try:
        return args.fn(args)
    except (EngineError, StoreError, TaskError) as err:
        return fail(str(err))
    except DBAPIError as err:
        return fail(_database_fault(err, args.db))
    except OSError as err:
        return fail(os_error(err))
    except KeyboardInterrupt:
        sys.excepthook = _quiet_interrupt(sys.excepthook)
        raise  # Python finishes as on Ctrl-C (finalizers, then the process ends by SIGINT)


#: what ``sys.excepthook`` is called with: the exception's class, the exception, its traceback
ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]


def _quiet_interrupt(previous: ExceptHook) -> ExceptHook:
    """An excepthook that prints no traceback for Ctrl-C (or a run's SIGTERM): the command has
    said in one line what stopped."""

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)

    return hook


def fail(message: str) -> int:
    from ..models.redact import redact

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
    from ..store import default_url
    from ..store.errors import StoreError, first_line, shown, write_fault

    try:
        url = url or default_url()
    except StoreError as no_folder:
        return str(no_folder)
    fault = write_fault(err, url)
    return str(fault) if fault else f"the results database at {shown(url)} failed: {first_line(err)}"


if __name__ == "__main__":
    sys.exit(main())
