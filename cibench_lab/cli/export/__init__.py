"""`cibench-lab export`: what the results database recorded, for analysis elsewhere.

    cibench-lab export --format csv|jsonl|notebooks [--study S] [--run R] [--participant P]
                       [--real-names] DIR
    cibench-lab export --format opencompass RUN DIR
    cibench-lab export --format inspect [--profile P] [--log-format eval|json] (RUN ... | --study S) OUT

csv/jsonl: the tables attempts, steps, turns, events and participants, one file each
(:mod:`.tabular`); notebooks: one transcript per attempt (:mod:`.transcript`); opencompass: a run
in OpenCompass's prediction format (:mod:`.opencompass`); inspect: Inspect AI eval logs
(:mod:`.inspectlog`, imported only then: the optional ``inspect_ai``).  People are pseudonymised unless
``--real-names``.  Columns and rules: docs/exports.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...grading.profile import PROFILES
from ...inspectai import missing
from ...store import Store
from .. import add_command
from ..common import library
from .opencompass import cmd_opencompass, export_run
from .selection import Filters, resolve
from .tabular import FORMATS, write_tables
from .transcript import write_notebooks

TABLE_FORMATS = FORMATS
ALL_FORMATS = ("opencompass", *FORMATS, "notebooks", "inspect")
#: ``--format inspect``'s default profile: `report`'s (CIBench's metrics)
INSPECT_PROFILE = "cibench"


def cmd_export(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths]
    if args.format == "inspect":
        return _inspect(args, args.paths)
    if args.profile or args.log_format:
        return _usage("--profile and --log-format apply to --format inspect")
    if args.format == "opencompass":
        if args.study or args.participant or args.real_names:
            return _usage("--study, --participant and --real-names apply to csv, jsonl and notebooks")
        if len(paths) == 2 and args.run is None:
            return cmd_opencompass(args, str(paths[0]), paths[1])
        if len(paths) == 1 and args.run is not None:
            return cmd_opencompass(args, args.run, paths[0])
        return _usage("export --format opencompass takes RUN DIR")
    if len(paths) != 1:
        return _usage(f"export --format {args.format} takes one folder DIR (choose a run with --run RUN)")
    return _export(args, paths[0])


def _export(args: argparse.Namespace, folder: Path) -> int:
    store = Store(args.db)
    filters = Filters(args.study, args.run, args.participant, args.real_names)
    with store.session() as s:
        try:
            sel = resolve(s, filters)
        except LookupError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    names = "real names" if args.real_names else "pseudonyms"
    if args.format == "notebooks":
        n = write_notebooks(store, sel, library(args), folder)
        print(f"exported {n} transcript notebook{'' if n == 1 else 's'} to {folder} ({names})")
        return 0
    counts = write_tables(store, sel, folder, args.format)
    tables = ", ".join(f"{k} {v}" for k, v in counts.items() if k != "attempts")
    print(f"exported {counts['attempts']} attempts ({tables}) to {folder} as {args.format} ({names})")
    return 0


def _inspect(args: argparse.Namespace, given: list[str]) -> int:
    runs = given[:-1] + ([args.run] if args.run else [])
    if not runs and not args.study:
        return _usage("export --format inspect takes RUN ... OUT or --study ID OUT")
    why = missing()
    if why:
        return _usage(why)
    from .inspectlog import cmd_inspect

    args.profile = args.profile or INSPECT_PROFILE
    args.log_format = args.log_format or "eval"
    return cmd_inspect(args, Store(args.db), library(args), runs, Path(given[-1]))


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = add_command(sub, "export")
    r.add_argument(
        "--format", choices=ALL_FORMATS, default="opencompass", help="export format (default opencompass)"
    )
    r.add_argument("--study", metavar="S", help="only the attempts of study S")
    r.add_argument("--run", metavar="R", help="only the attempts of run R (name or id)")
    r.add_argument("--participant", metavar="P", help="only P's attempts: a name, a pseudonym p-… or u-N")
    r.add_argument("--real-names", action="store_true", help="show people's names, not pseudonyms")
    r.add_argument(
        "--profile",
        choices=PROFILES,
        help=f"inspect: the grading profile of the samples' scores (default {INSPECT_PROFILE}, as report)",
    )
    r.add_argument(
        "--log-format", choices=("eval", "json"), help="inspect: Inspect's log file format (default eval)"
    )
    r.add_argument(
        "paths",
        nargs="+",
        metavar="[RUN] DIR",
        help="output folder (opencompass: RUN DIR; inspect: RUN ... DIR, or --study S DIR)",
    )
    r.set_defaults(fn=cmd_export)


__all__ = ["cmd_export", "export_run", "register"]
