"""A task from a teacher's solution notebook: ``cibench-lab tasks new`` and the lab's command.

:func:`new_task` reads the notebook by the pairing rule (:mod:`..tasks.solution`), refuses
what cannot be a task before any kernel starts (the cells that do not pair, code that does not
parse, an import the kernel environment lacks, a data file another task uses, what the lint
flags in the instructions), then runs the solution top to bottom in one fresh task kernel —
sandboxed as attempts are, in a folder holding the task's ``data/`` as each attempt's does,
with the hidden start code and the rendering new tasks are written with (``stock`` at 72 dpi)
— and records each step's outputs as its reference.  Each step's kind is its tag's or inferred
from those outputs (:mod:`..tasks.stepkind`); the task notebook (:mod:`..tasks.authoring`) is
linted again, checked as the build checks its notebooks (structure, outputs per kind, the
schema, every reference passing itself) and written to ``<into>/classroom/<lib>/<stem>.ipynb``
with its data under ``<into>/datasources/`` — unless anything was refused, or ``check``.
Every refusal names the teacher's cell (:class:`~..tasks.solution.Refusal`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from ..errors import BadInput, EngineError, Forbidden
from ..kernels.execution import Execution
from ..kernels.spec import KERNEL_NAME
from ..tasks.archive import DATASOURCES
from ..tasks.authoring import TaskPlan, lint_refusals, plot_elements, step_modules, task_notebook
from ..tasks.errors import TaskError
from ..tasks.library import CLASSROOM
from ..tasks.links import LinkRefused, check_no_link
from ..tasks.lint import lint_text
from ..tasks.plotcode import CodeFacts, read_notebook
from ..tasks.rendering import STOCK_72
from ..tasks.solution import (
    Refusal,
    Solution,
    choose_library,
    imports,
    read_solution,
    stem_of,
    syntax_refusals,
)
from ..tasks.stepkind import Inferred, infer
from ..tasks.taskdata import clashes, copy_files, data_files, data_folder

KERNELSPEC = {"name": KERNEL_NAME, "display_name": "Python 3 (CIBench)", "language": "python"}


@dataclass(frozen=True)
class NewTaskOptions:
    lib: str | None = None  # default: the library the solution uses most
    language: str = "en"
    data: Path | None = None  # default: data/ beside the notebook
    check: bool = False  # only say what the task would be
    timeout: float = 120.0  # seconds per step
    root: Path | None = None  # the server root the data folder must be under (the lab's route)
    attempts: Path | None = None  # the lab's attempts folder, whose links are never followed


@dataclass
class StepRow:
    """One step as the teacher confirms it."""

    step: int  # 0-based
    cell: int  # its code cell (1-based)
    kind: str | None  # its tag's or the inferred kind; None: not known (not run, or refused untagged)
    tagged: bool
    answer: str = ""
    modules: list[str] = field(default_factory=list)
    plot_elements: list[str] = field(default_factory=list)
    seconds: float | None = None


@dataclass
class NewTask:
    """What ``tasks new`` made of a notebook (or would make, or refused)."""

    task_id: str
    path: Path  # the task notebook, written or to be written
    lib: str | None
    language: str
    title: str
    steps: list[StepRow] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    written: bool = False
    updated: bool = False  # it replaced an earlier version of the task
    data_files: list[str] = field(default_factory=list)

    def view(self, root: Path | None = None, into: Path | None = None) -> dict:
        """The answer; the lab's (``root``, ``into``: the server root, new_tasks_dir) names no folder of
        the server's (:func:`shown_path`)."""
        out = asdict(self)
        out["path"] = shown_path(self.path, root, into or self.path.parent)
        out["refusals"] = [{"cell": r.cell, "message": r.line()} for r in self.refusals]
        return out


def shown_path(path: Path, root: Path | None, into: Path) -> str:
    """How an answer names ``path``: the CLI's (no server ``root``) as it is; the lab's relative to the
    server root when under it, else as ``new_tasks_dir/...`` (``into``), else by its name only."""
    if root is None:
        return str(path)
    for base, prefix in ((root, ""), (into, "new_tasks_dir")):
        if path.is_relative_to(base):
            rel = path.relative_to(base).as_posix()
            return "/".join(p for p in (prefix, rel) if p and p != ".") or "."
    return path.name


def read(path: Path, root: Path | None = None) -> dict:
    """The teacher's notebook (any nbformat 4 minor), or BadInput naming it (relative to the
    server root ``root`` when given: the lab's answer names no folder of the server's)."""
    shown = path.relative_to(root).as_posix() if root is not None and path.is_relative_to(root) else path
    try:
        return nbformat.read(str(path), as_version=4)
    except FileNotFoundError:
        raise BadInput(f"{shown}: no such notebook") from None
    except Exception as err:  # unreadable JSON, not a notebook, another major version
        problem = str(err).replace(str(path), str(shown)).splitlines()[0] if str(err) else ""
        raise BadInput(f"{shown}: not a readable notebook ({type(err).__name__}: {problem})") from None


async def new_task(source: Path, into: Path, options: NewTaskOptions = NewTaskOptions()) -> NewTask:
    """Make (or with ``options.check`` only check) the task of the solution notebook ``source``;
    the reading, checking and writing in a worker thread (a server's event loop goes on)."""
    result, solution, facts = await asyncio.to_thread(_read, source, into, options)
    if result.refusals:
        return result
    files = await asyncio.to_thread(_before_run, solution, result, into, options)
    if result.refusals:
        return result
    runs = await _run(solution, files, options.timeout)
    plan = _plan(solution, facts, result, runs, sorted(files))
    if result.refusals:
        return result
    text = await asyncio.to_thread(_checked, solution, plan, result)
    if text is not None and not options.check:
        await asyncio.to_thread(_write, result, text, files, into, shown_path(into, options.root, into))
    return result


def _read(source: Path, into: Path, options: NewTaskOptions) -> tuple[NewTask, Solution, list[CodeFacts]]:
    """The notebook by the pairing rule, its library and stem, and what is refused in them."""
    solution = read_solution(read(source, options.root), source)
    facts = read_notebook([s.code for s in solution.steps])
    lib = choose_library([f.uses for f in facts], options.lib)
    stem = stem_of(source)
    result = _result(solution, lib, stem, into, options)
    result.refusals += solution.refusals
    if isinstance(lib, Refusal):
        result.refusals.append(lib)
    if not stem:
        result.refusals.append(
            Refusal(None, f"{source.name}: no letter or digit in its name to name the task")
        )
    return result, solution, facts


def _result(
    solution: Solution, lib: str | Refusal, stem: str, into: Path, options: NewTaskOptions
) -> NewTask:
    name = lib if isinstance(lib, str) else None
    task_id = f"{CLASSROOM}/{name or '?'}/{stem}"
    path = into / CLASSROOM / (name or "?") / f"{stem}.ipynb"
    rows = [StepRow(s.index, s.code_cell, s.tag, s.tag is not None) for s in solution.steps]
    return NewTask(task_id, path, name, options.language, solution.title, rows)


def _before_run(solution: Solution, result: NewTask, into: Path, options: NewTaskOptions) -> dict[str, Path]:
    """What can be refused before a kernel starts; the data files the task carries."""
    result.refusals += syntax_refusals(solution)
    result.refusals += missing_imports(solution)
    folder = data_folder(solution.path, options.data)
    if folder is not None and options.root is not None and not folder.resolve().is_relative_to(options.root):
        raise BadInput(f"data: {folder.name}/ leads outside the server root")
    files, refused = data_files(folder)
    if options.attempts is not None:
        _no_links([folder, *files.values()] if folder else [], options.attempts)
    result.refusals += refused + clashes(files, into, result.task_id, shown_path(into, options.root, into))
    if not result.refusals:  # the instructions, before the kernel: a plot element left unsaid, ...
        draft = TaskPlan(result.lib or "", options.language)
        result.refusals += _lint(solution, task_notebook(solution, draft, KERNELSPEC, STOCK_72), result)
    return files


def _no_links(paths: list[Path], attempts: Path) -> None:
    """Forbidden (one line) when a path goes through a link in the attempts folder (a kernel's)."""
    for path in paths:
        try:
            check_no_link(path, attempts, f"data: {path.name}")
        except LinkRefused as err:
            raise Forbidden(str(err)) from None


def missing_imports(solution: Solution) -> list[Refusal]:
    """Each import of a step that the kernel environment cannot satisfy."""
    from ..kernels.interpreter import KernelPythonError, describe, kernel_python

    try:
        modules = describe(kernel_python()).modules
    except KernelPythonError as err:
        raise BadInput(str(err)) from None
    if not modules:  # an interpreter that did not say what it holds: the run tells
        return []
    return [
        Refusal(s.code_cell, f"step {s.index + 1} imports `{name}`, which the kernel environment lacks")
        for s in solution.steps
        for name in imports(s.code)
        if name not in modules
    ]


def _lint(solution: Solution, nb: nbformat.NotebookNode, result: NewTask) -> list[Refusal]:
    from .build import notebook_text

    try:
        flags = lint_text(notebook_text(nb), result.path, result.task_id)
    except TaskError as err:
        return [Refusal(None, f"the task does not load: {err.problem}")]
    return lint_refusals(flags, solution)


async def _run(solution: Solution, files: dict[str, Path], timeout: float) -> list[tuple[Execution, float]]:
    """Each step's execution and seconds, in one fresh task kernel; up to the first that fails."""
    from .steprun import RunSettings, run_steps

    with tempfile.TemporaryDirectory(prefix="cibench-new-") as tmp:
        folder = Path(tmp) / "attempt"
        folder.mkdir()  # (a task with no data/ folder copies nothing into it)
        copy_files(files, folder)
        try:
            runs = await run_steps([s.code for s in solution.steps], folder, RunSettings(timeout, STOCK_72))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if runs.error is not None:  # the kernel would not start, or its channel died
        raise EngineError(f"the task kernel failed: {runs.error}")
    return [(run.execution, run.seconds) for run in runs.steps]


def _plan(
    solution: Solution, facts: list[CodeFacts], result: NewTask, runs: list, files: list[str]
) -> TaskPlan:
    """Each run step's kind, outputs, modules and plot elements; refusals for the ones that fail."""
    plan = TaskPlan(result.lib or "", result.language, data_files=files)
    for step, fact, row, (ex, seconds) in zip(solution.steps, facts, result.steps, runs, strict=False):
        row.seconds = round(seconds, 2)
        inferred = _inferred(ex, step.tag)
        if inferred.problem is not None or inferred.kind is None:
            result.refusals.append(Refusal(step.code_cell, f"step {step.index + 1} {inferred.problem}"))
            continue
        row.kind, row.answer = inferred.kind, inferred.answer
        row.modules = list(step_modules(fact, plan.lib))
        if inferred.kind == "vis":
            row.plot_elements = plot_elements(step.instruction, fact)
            plan.elements[step.index] = row.plot_elements
        plan.kinds.append(inferred.kind)
        plan.outputs.append(ex.outputs)
        plan.modules.append(tuple(row.modules))
    if len(runs) < len(solution.steps) and not result.refusals:
        result.refusals.append(Refusal(None, "the kernel stopped before the last step"))
    _timing(result)
    return plan


def _inferred(ex: Execution, tag: str | None) -> Inferred:
    if ex.status == "timeout":
        return Inferred(None, problem="did not finish in time (the kernel was interrupted)")
    if ex.status == "dead":
        return Inferred(None, problem=f"stopped the kernel ({ex.died or 'it died'})")
    if ex.error:
        err = next((o for o in ex.outputs if o.get("output_type") == "error"), {})
        last = f"{err.get('ename', 'Error')}: {err.get('evalue', '')}".strip().rstrip(":")
        hint = (
            " (the kernel sees only the task's data/ folder)"
            if err.get("ename") == "FileNotFoundError"
            else ""
        )
        return Inferred(None, problem=f"raises {last}{hint}")
    if ex.truncated:
        return Inferred(None, problem="shows more output than a turn keeps")
    return infer(tag, ex.outputs)


def _timing(result: NewTask) -> None:
    from .build import STEP_SECONDS, TASK_SECONDS

    slow = [f"{r.step + 1} ({r.seconds:.1f} s)" for r in result.steps if (r.seconds or 0) > STEP_SECONDS]
    if slow:
        result.warnings.append(
            f"steps over {STEP_SECONDS:.0f} s: {', '.join(slow)} (players wait on each run)"
        )
    total = sum(r.seconds or 0 for r in result.steps)
    if total > TASK_SECONDS:
        result.warnings.append(
            f"the solution took {total:.0f} s in all (a task should take at most {TASK_SECONDS:.0f})"
        )


def _self_graded(text: str, result: NewTask) -> list[str]:
    """The task loads (its metadata valid against the schema) and each reference passes itself."""
    from ..tasks.format import parse_notebook
    from .verify import self_grade_problems

    try:
        task = parse_notebook(text.encode("utf-8"), result.path, result.task_id, None)
    except TaskError as err:
        return [f"it does not load: {err.problem}"]
    return [f"step {s.index + 1} ({s.kind}): {p}" for s in task.steps for p in self_grade_problems(s)]


def _checked(solution: Solution, plan: TaskPlan, result: NewTask) -> str | None:
    """The task notebook's text when the lint and the build's checks pass it, else None (refused)."""
    from ..tasks.checks import check_outputs, check_structure
    from .build import notebook_text

    nb = task_notebook(solution, plan, KERNELSPEC, STOCK_72)
    result.refusals += _lint(solution, nb, result)
    problems = check_structure(nb, CLASSROOM, KERNEL_NAME) + check_outputs(nb, CLASSROOM)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as err:
        problems.append(f"not a valid notebook: {err.message}")
    text = notebook_text(nb)
    if not problems:
        problems = _self_graded(text, result)
    result.refusals += [Refusal(None, f"the task would not be usable: {p}") for p in problems]
    result.data_files = plan.data_files
    return None if result.refusals else text


def _write(result: NewTask, text: str, files: dict[str, Path], into: Path, shown: str) -> None:
    """The task notebook and its data; TaskError naming the file that cannot be written."""
    try:
        copy_files(files, into / DATASOURCES)
        result.updated = result.path.is_file()
        result.path.parent.mkdir(parents=True, exist_ok=True)
        # whole or not at all: a server rescanning the folder never reads it half-written
        partial = result.path.with_name(f".{result.path.name}.{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, result.path)
    except OSError as err:
        raise BadInput(f"cannot write the task into {shown}: {err.strerror or err}") from None
    result.written = True
