"""`cibench-lab tasks ...`: list, inspect, import, verify and build tasks (``new``: cli/newtask.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..tasks.errors import TaskError
from ..tasks.model import Task
from . import add_command
from .common import add_sandbox_options, library, start_sandbox, steps_text
from .lint import register as register_lint
from .newtask import register as register_new

if TYPE_CHECKING:
    from ..authoring.verify import Verdict
    from ..tasks.rendering import Rendering


def _matches(task: Task, args: argparse.Namespace) -> bool:
    return (
        (not args.split or task.split == args.split)
        and (not args.lib or task.lib == args.lib)
        and (not args.lang or task.language == args.lang)
    )


def cmd_list(args: argparse.Namespace) -> int:
    from ..tasks.lintstore import stored_flags

    tasks = [t for t in library(args).select(None) if _matches(t, args)]
    rows = [t.summary() for t in tasks]
    for row, task in zip(rows, tasks, strict=True):
        flags = stored_flags(task)
        if flags:  # an imported task the lint flagged (<task dir>/.cibench-lab/lint.json)
            row["lint_flags"] = len(flags)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for r in rows:
        lint = f"  [lint: {r['lint_flags']} flags]" if r.get("lint_flags") else ""
        print(f"{r['id']:<50} {r['language']:<3} {steps_text(r['steps']):>9}  {r['title']}{lint}")
    print(f"{len(rows)} tasks", file=sys.stderr)
    return 0


def task_admin_view(task: Task) -> dict:
    """Everything about a task, reference material included (admin view); a step's prompt is the one
    its benchmark asks, with what the benchmark adds (its own item: :meth:`.Benchmark.task_view`)."""
    from ..benchmarks import benchmark_of

    benchmark = benchmark_of(task)
    view = {
        **task.summary(),
        "intro": task.intro,
        "path": str(task.path),
        "content_hash": task.content_hash,
        "data_files": list(task.data_files),
        "rendering": {
            **task.rendering.rendering.record(),
            "basis": task.rendering.basis,
            "verified": task.rendering.verified,
            "detail": task.rendering.detail,
        },
        "steps": [
            {
                "index": s.index,
                "kind": s.kind,
                "detected_kind": s.reference.kind,
                "instruction": s.instruction,
                "thought": s.thought,
                "modules": list(s.modules),
                "code": s.code,
                "reference_output": s.reference.summary(),
                "prompt": benchmark.prompt(task, s),
            }
            for s in task.steps
        ],
    }
    return {**view, **benchmark.task_view(task)}


def cmd_show(args: argparse.Namespace) -> int:
    from ..benchmarks import benchmark_of
    from ..tasks.lint import lint_task

    try:
        task = library(args).get(args.id)
    except KeyError as err:
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    view = task_admin_view(task)
    flags = lint_task(task)
    if args.json:
        view["lint"] = [dataclasses.asdict(f) for f in flags]
        print(json.dumps(view, indent=2, ensure_ascii=False))
        return 0
    print(f"{task.id} — {task.title} ({steps_text(len(task.steps))})\n{task.intro}\n")
    print(f"rendering: {task.rendering.describe()}\n")
    limits, no_reference = benchmark_of(task).show_lines(view)
    if limits:
        print(limits)
    for s in view["steps"]:
        reference = no_reference or f"reference:\n{s['code']}\noutput: {s['reference_output']}\n"
        print(f"--- step {s['index'] + 1} [{s['kind']}]\n{s['prompt']}{reference}")
    print(f"lint: {len(flags)} flags" + "".join(f"\n  {f.line()}" for f in flags))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..tasks.importer import import_tasks, remove_empty
    from ..tasks.library import TaskLibrary, default_task_dirs, user_tasks_dir

    into = (args.into or user_tasks_dir()).resolve()
    others = [d for d in (args.task_dir or default_task_dirs()) if Path(d).resolve() != into]
    served = TaskLibrary.load(others)
    try:
        report = import_tasks(args.path, into, served)
    except TaskError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for task_id in report.imported:
        print(f"imported   {task_id}")
    for task_id in report.updated:
        print(f"updated    {task_id}")
    for path, why in report.rejected:
        print(f"rejected   {path}: {why}")
    for task_id, rendering in sorted(report.unverified.items()):
        print(f"rendering  {task_id}: {rendering.describe()}: unconfirmed; plots graded by SSIM until verify")
    if report.unverified:
        print(
            f"{len(report.unverified)} tasks' rendering is unconfirmed: "
            "`cibench-lab tasks verify` confirms it by re-running their references, and records "
            "their reference figures' structure (until then the fair profile grades their plots by SSIM)"
        )
    print_lint_warnings(report.lint, into)
    print(
        f"{len(report.imported)} imported, {len(report.updated)} updated, {len(report.unchanged)} unchanged, "
        f"{len(report.rejected)} rejected, {report.data_files} data files written -> {into}"
    )
    remove_empty(into)
    return 0 if report.imported or report.updated or report.unchanged or not report.rejected else 1


def print_lint_warnings(lint: dict, into: Path) -> None:
    """One warning line per flagged step: file, cell, the elements (``tasks lint`` has the rest)."""
    from ..tasks.lint import flagged_steps

    for flags in lint.values():
        for first, kinds in flagged_steps(flags):
            where = (
                Path(first.file).relative_to(into) if Path(first.file).is_relative_to(into) else first.file
            )
            cell = "metadata" if first.cell is None else first.cell
            step = "" if first.step is None else f" step {first.step + 1}:"
            print(f"lint       {where}:{cell}:{step} flags {', '.join(kinds)}")
    if lint:
        print(
            f"{len(lint)} tasks flagged by the lint (imported anyway; the flags are kept in "
            f"{into}/.cibench-lab/lint.json, `cibench-lab tasks lint {into}` explains them)"
        )


def verdict_lines(v: Verdict) -> list[str]:
    mem = f", kernel {v.peak_rss / 2**20:.0f} MiB" if v.peak_rss else ""
    state = "ok" if v.ok else "ERROR" if v.error else "DRIFT"
    lines = [f"{state:5} {v.task_id}  {steps_text(v.steps)}, {v.seconds:.1f} s{mem}"]
    if v.error:
        lines.append(f"      could not run: {v.error}")
    lines += [f"      step {d.step + 1} [{d.kind}]: {d.detail}" for d in v.drifts]
    lines += [f"      step {d.step + 1} [{d.kind}] changed: {d.detail}" for d in v.changed]
    if v.rendering_note:
        lines.append(f"      rendering: {v.rendering_note}")
    return lines


def run_with_progress(tasks: list[Task], args: argparse.Namespace) -> list[Verdict]:
    import asyncio

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..authoring.verify import verify_tasks

    console = Console(stderr=True)
    columns = (TextColumn("verify"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, disable=args.no_progress) as progress:
        bar = progress.add_task("verify", total=len(tasks))

        def done(verdict: Verdict) -> None:
            if not args.json:
                progress.console.print(
                    "\n".join(verdict_lines(verdict)), markup=False, highlight=False, soft_wrap=True
                )
            progress.advance(bar)

        coro = verify_tasks(
            tasks,
            jobs=args.jobs,
            timeout=args.timeout,
            exact=args.exact,
            on_done=done,
            rendering=args.rendering,
        )
        return asyncio.run(coro)


def summary_line(verdicts: list, seconds: float, figures: int | None = None) -> str:
    """The verify summary (``figures``: the reference figure structures recorded, when recorded)."""
    steps = sum(v.steps for v in verdicts)
    drifted = sum(len({d.step for d in v.drifts}) for v in verdicts)
    bad = sum(not v.ok for v in verdicts)
    peak = max((v.peak_rss or 0 for v in verdicts), default=0)
    recorded = "" if figures is None else f", {figures} reference figures recorded"
    return (
        f"{len(verdicts)} tasks, {steps} steps: {drifted} drifted steps in {bad} tasks, "
        f"{sum(len(v.changed) for v in verdicts)} changed outputs, "
        f"{sum(v.exceptions for v in verdicts)} documented exceptions{recorded}; "
        f"{seconds:.1f} s, peak kernel memory {peak / 2**20:.0f} MiB"
    )


def verifiable(tasks: list[Task]) -> list[Task]:
    """The tasks with reference code to re-run; a benchmark's tasks without (its reference refusal)
    are left out, counted on stderr per benchmark."""
    from ..benchmarks import benchmark_of

    keep: list[Task] = []
    skipped: dict[str, int] = {}
    for task in tasks:
        benchmark = benchmark_of(task)
        if benchmark.reference_refusal(task) is None:
            keep.append(task)
        else:
            skipped[benchmark.title] = skipped.get(benchmark.title, 0) + 1
    for title, n in skipped.items():
        print(f"skipped {n} tasks of {title} (no reference code)", file=sys.stderr)
    return keep


def cmd_verify(args: argparse.Namespace) -> int:
    import dataclasses
    import time

    from ..authoring.verify import record_figures, record_renderings

    tasks = library(args).select(args.patterns or None)
    if not tasks:
        print(f"error: no task matches {' '.join(args.patterns)}", file=sys.stderr)
        return 2
    tasks = verifiable(tasks)
    if not tasks:
        print("error: none of the selected tasks has reference code to verify", file=sys.stderr)
        return 2
    if not start_sandbox(args):
        return 2
    started = time.perf_counter()
    verdicts = run_with_progress(tasks, args)
    seconds = time.perf_counter() - started
    try:
        recorded = record_renderings(tasks, verdicts)
        figures = record_figures(tasks, verdicts)
    except OSError as err:
        print(f"error: the confirmed renderings or figures could not be recorded: {err}", file=sys.stderr)
        return 2
    if args.json:
        rows = [{**dataclasses.asdict(v), "figures": sorted(v.figures)} for v in verdicts]
        print(json.dumps(rows, indent=2))
    else:
        for v in verdicts:
            if not v.ok or v.changed or v.rendering_note:
                print("\n".join(verdict_lines(v)))
        for task_id, path in sorted(recorded.items()):
            rendering = next(v.rendering for v in verdicts if v.task_id == task_id)
            print(f"rendering  {task_id}: {rendering} confirmed -> {path}")
        for task_id, (path, count) in sorted(figures.items()):
            print(f"figures    {task_id}: {count} reference figure structures recorded -> {path}")
        print(summary_line(verdicts, seconds, sum(n for _, n in figures.values())))
    return 0 if all(v.ok for v in verdicts) else 1


def rendering_arg(text: str) -> Rendering:
    """argparse type of ``--rendering``: a preset, PRESET:DPI or a dpi."""
    from ..tasks.rendering import RenderingError, parse

    try:
        return parse(text)
    except RenderingError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def cmd_build(args: argparse.Namespace) -> int:
    from ..authoring.build import build_all
    from ..tasks.library import user_tasks_dir
    from ..tasks.template import build_table

    into = args.into or user_tasks_dir()
    try:
        paths = [p for table in args.tables for p in build_table(table, into)]
    except TaskError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.no_execute:
        print("\n".join(f"written   {p}" for p in paths))
        return 0
    if not start_sandbox(args):
        return 2
    failed, _ = build_all(paths, args.timeout, write=True, state=lambda result: "built")
    return 1 if failed else 0


INTO_HELP = "task directory (default: <jupyter data dir>/cibench_lab/tasks)"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks = add_command(sub, "tasks")
    tsub = tasks.add_subparsers(dest="sub", required=True)
    tl = tsub.add_parser("list", help="list the tasks")
    tl.add_argument("--json", action="store_true", help="JSON output")
    tl.add_argument("--split", help="only this split (e.g. cibench_template_chinese)")
    tl.add_argument("--lib", help="only this library (e.g. pandas)")
    tl.add_argument("--lang", choices=("en", "zh"), help="only tasks in this language")
    tl.set_defaults(fn=cmd_list)
    ts = tsub.add_parser("show", help="one task with its references and prompts (admin view)")
    ts.add_argument("id")
    ts.add_argument("--json", action="store_true", help="JSON output")
    ts.set_defaults(fn=cmd_show)
    ti = tsub.add_parser("import", help="import the official CIBench zip or folder")
    ti.add_argument("path", type=Path, help="cibench_dataset.zip or a folder with cibench_template/ ...")
    ti.add_argument("--into", type=Path, help=INTO_HELP)
    ti.set_defaults(fn=cmd_import)
    tv = tsub.add_parser("verify", help="re-execute references and report drift")
    tv.add_argument("patterns", nargs="*", metavar="ID|PATTERN", help="task ids or globs (default: all)")
    tv.add_argument("--jobs", type=int, default=1, help="kernels at once (default 1)")
    tv.add_argument("--timeout", type=float, default=120.0, help="seconds per step (default 120)")
    tv.add_argument("--exact", action="store_true", help="count changed output bytes as drift")
    tv.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    tv.add_argument("--no-progress", action="store_true", help="no progress bar")
    tv.add_argument(
        "--rendering",
        type=rendering_arg,
        metavar="PRESET[:DPI]",
        help="re-run under this plot rendering (stock, legacy-inline, stock:72, ...) instead of each "
        "task's own; recorded for the tasks that verify (not for tasks declaring theirs)",
    )
    add_sandbox_options(tv, network=False)
    tv.set_defaults(fn=cmd_verify)
    register_lint(tsub)
    register_build(tsub)
    register_new(tsub)


def register_build(tsub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tb = tsub.add_parser("build", help="instantiate templates and record their references")
    tb.add_argument("tables", nargs="+", type=Path, help="<name>.datasets.json template tables")
    tb.add_argument("--into", type=Path, help=INTO_HELP)
    tb.add_argument("--no-execute", action="store_true", help="write the notebooks without running them")
    tb.add_argument("--timeout", type=int, default=120, help="seconds per step (default 120)")
    add_sandbox_options(tb, network=False)
    tb.set_defaults(fn=cmd_build)
