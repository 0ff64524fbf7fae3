"""Record the reference outputs of task notebooks.

    python -m cibench_lab.authoring.build [--check] [--timeout SECONDS] [NOTEBOOK ...]

Each task notebook (default: every ``cibench_*/<lib>/*.ipynb`` next to this file) is run step by
step in ONE fresh ``cibench-lab`` kernel (:func:`cibench_lab.authoring.steprun.run_steps`, as
``tasks verify`` and ``tasks new`` run theirs; sandboxed unless ``tasks build --no-sandbox``)
whose working directory is a temporary copy of its task directory's ``datasources/``
(``<dir>/<split>/<lib>/<task>.ipynb`` -> ``<dir>/datasources``; the built-in one when absent)
— exactly how a player's attempt runs — after the hidden start code
(:func:`cibench_lab.kernels.spec.start_code` with the task's rendering, not stored: the one
it declares or its directory records, else what its PNGs show, else ``stock:72``; a notebook
with ``cibench_lab`` metadata that declares none gets the one used written into
``metadata.cibench_lab.rendering``).  The real outputs are written back
into the notebook in place; execution timing metadata is not recorded, so a rebuild on the same
machine is byte-identical.  Before anything is written, the notebook's structure (alternating
instruction/code cells, ``step_types``, ``modules``, ``cibench_lab`` metadata) and every step's
outputs are checked against its step kind (:mod:`cibench_lab.tasks.checks`): ``exec`` no output,
``num`` one printed number, ``text`` one printed line, ``vis`` exactly one PNG, never an error or
stderr; in the generation split (no ``step_types``) each step must take one of those shapes.
Then the result must load with the task loader and every step's reference must pass itself under
every grading profile (except :func:`cibench_lab.tasks.checks.known_exception`: under ``cibench``
a text answer without ASCII letters or digits scores 0 even against itself).  The task lint
(:mod:`cibench_lab.tasks.lint`) runs before the kernel starts and again on the result: a vis
reference that sets a plot element its instruction does not name, a template placeholder left in
an instruction, or a "Please use X" the reference does not follow refuses the notebook
(``--no-lint`` re-records the references of a task still being fixed).

A notebook that fails a check is not written.  ``--check`` writes nothing and exits non-zero if
any notebook would change (use it to prove the references are reproducible here).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from cibench_lab.authoring.buildcells import CellExecutionError, StepFailure, raise_failure, record
from cibench_lab.authoring.steprun import RunSettings, run_steps
from cibench_lab.builtin import BUILTIN_DIR, DATASOURCES_DIR
from cibench_lab.kernels.spec import KERNEL_NAME, ensure_kernelspec
from cibench_lab.tasks.checks import check_outputs, check_structure
from cibench_lab.tasks.errors import TaskError
from cibench_lab.tasks.lint import lint_text, refusal
from cibench_lab.tasks.plot import FIGURE_MIME
from cibench_lab.tasks.rendering import STOCK_72, Rendering, TaskRendering

STEP_SECONDS = 3.0  # authoring budget: a typical step takes at most this long ...
TASK_SECONDS = 30.0  # ... and a whole task at most this long, on two cores.


class BuildError(Exception):
    """A task notebook that cannot be built; the message names the file and the problem."""


@dataclass
class BuildResult:
    path: Path
    steps: int
    seconds: float
    step_seconds: list[float] = field(default_factory=list)
    changed: bool = False


def default_paths() -> list[Path]:
    return sorted(BUILTIN_DIR.glob("cibench_*/*/*.ipynb"))


def task_datasources(path: Path) -> Path:
    """``<dir>/datasources`` of the task directory holding ``path``; the built-in one when absent."""
    candidate = path.resolve().parents[2] / "datasources"
    return candidate if candidate.is_dir() else DATASOURCES_DIR


# --------------------------------------------------------------------------- execution


def _clear(nb: nbformat.NotebookNode) -> None:
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        cell.metadata.pop("execution", None)


def task_rendering(path: Path) -> TaskRendering:
    """The rendering ``path`` is built with: declared, recorded or detected; else ``stock:72``."""
    from cibench_lab.tasks.library import TaskLibrary

    task = TaskLibrary().add_notebook(path)
    if task is None or task.rendering.basis == "assumed":
        return TaskRendering(STOCK_72, "assumed", detail="the default of tasks we write")
    return task.rendering


class KernelFailed(Exception):
    """The kernel would not start, its start code failed or its channel died ("Type: message")."""


def execute(
    nb: nbformat.NotebookNode,
    spec_dir: Path,
    timeout: int,
    datasources: Path = DATASOURCES_DIR,
    rendering: Rendering = STOCK_72,
) -> list[float]:
    """Run the code cells of ``nb`` step by step in one fresh kernel (:func:`.steprun.run_steps`,
    as ``verify`` and ``new`` run theirs), their outputs written in place; seconds per step.  A
    step that fails raises its :class:`~.buildcells.StepFailure`; a kernel that fails,
    :class:`KernelFailed`."""
    _clear(nb)
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]  # empty: not run
    settings = RunSettings(timeout, rendering, stop_at_failure=True, spec_dir=spec_dir)
    with tempfile.TemporaryDirectory(prefix="cibench-build-") as tmp:
        cwd = Path(tmp) / "datasources"
        shutil.copytree(datasources, cwd)
        runs = asyncio.run(run_steps([c.source for c in cells], cwd, settings))
    if runs.error is not None:
        raise KernelFailed(runs.error)
    if runs.language_info is not None:
        nb.metadata["language_info"] = runs.language_info
    for number, (cell, run) in enumerate(zip(cells, runs.steps, strict=False), 1):
        record(cell, run.execution, number)
        raise_failure(cell, run.execution, timeout)
    return [run.seconds for run in runs.steps]


def notebook_text(nb: nbformat.NotebookNode) -> str:
    """The notebook's text as nbformat writes it, but each figure structure on one line: nbformat
    would put every number of it on a line of its own (a built task's text would triple)."""
    nb = copy.deepcopy(nb)
    figures: list[str] = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data") or {}
            if FIGURE_MIME in data:
                figures.append(
                    json.dumps(data[FIGURE_MIME], ensure_ascii=False, separators=(",", ":"), sort_keys=True)
                )
                data[FIGURE_MIME] = {_FIGURE_SLOT: len(figures) - 1}
    text = _SLOT.sub(lambda m: figures[int(m.group(1))], nbformat.writes(nb))
    return text if text.endswith("\n") else text + "\n"


_FIGURE_SLOT = "__cibench_lab_figure__"
_SLOT = re.compile(r'\{\s*"' + _FIGURE_SLOT + r'": (\d+)\s*\}')


def _split(path: Path) -> str:
    return path.resolve().parent.parent.name


def check_loaded(path: Path, text: str, datasources: Path) -> list[str]:
    """The built notebook must load as a task, with every reference passing itself."""
    from cibench_lab.authoring.verify import self_grade_problems
    from cibench_lab.tasks.format import parse_notebook

    try:
        task = parse_notebook(text.encode("utf-8"), path, _task_id(path), datasources)
    except TaskError as err:
        return [f"does not load: {err.problem}"]
    problems = [f"data file {rel!r} missing" for rel in task.data_files if not (datasources / rel).is_file()]
    for step in task.steps:
        problems += [f"step {step.index + 1} ({step.kind}): {p}" for p in self_grade_problems(step)]
    return problems


def _task_id(path: Path) -> str:
    resolved = path.resolve()
    return f"{_split(path)}/{resolved.parent.name}/{resolved.stem}"


def lint_problems(path: Path, text: str) -> str | None:
    """The lint's refusal for a notebook's text (None when nothing is flagged, or when it does
    not load -- the structure checks and :func:`check_loaded` say why)."""
    try:
        flags = lint_text(text, path, _task_id(path))
    except TaskError:
        return None
    return refusal(flags) if flags else None


def _run(
    nb: nbformat.NotebookNode, path: Path, spec_dir: Path, timeout: int, rendering: Rendering, tries: int = 2
) -> list[float]:
    try:
        return execute(nb, spec_dir, timeout, task_datasources(path), rendering)
    except CellExecutionError as exc:
        raise BuildError(f"{path}: a reference cell failed:\n{exc}") from exc
    except StepFailure as exc:  # CellTimeoutError, DeadKernelError, OutputTruncatedError
        raise BuildError(f"{path}: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # the kernel did not start (e.g. its spec was being rewritten): once more
        if tries > 1:
            time.sleep(1.0)
            return _run(nb, path, spec_dir, timeout, rendering, tries - 1)
        failed = str(exc) if isinstance(exc, KernelFailed) else f"{type(exc).__name__}: {exc}"
        raise BuildError(f"{path}: the kernel failed: {failed}") from exc


def build(path: Path, spec_dir: Path, timeout: int, write: bool, lint: bool = True) -> BuildResult:
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # unreadable JSON, wrong nbformat, ...
        raise BuildError(f"{path}: not a readable notebook: {exc}") from exc
    problems = check_structure(nb, _split(path), KERNEL_NAME)
    if problems:
        raise BuildError(f"{path}: " + "; ".join(problems))
    refused = lint_problems(path, notebook_text(nb)) if lint else None
    if refused:  # before running anything: the instructions must say what the references draw
        raise BuildError(f"{path}: {refused}")
    rendering = task_rendering(path)
    if rendering.basis != "declared" and isinstance(nb.metadata.get("cibench_lab"), dict):
        nb.metadata["cibench_lab"]["rendering"] = rendering.rendering.record()  # a task we write
    started = time.perf_counter()
    step_seconds = _run(nb, path, spec_dir, timeout, rendering.rendering)
    seconds = time.perf_counter() - started
    problems = check_outputs(nb, _split(path))
    if problems:
        raise BuildError(f"{path}: outputs do not match the step kinds:\n  " + "\n  ".join(problems))
    nbformat.validate(nb)
    new_text = notebook_text(nb)
    problems = check_loaded(path, new_text, task_datasources(path))
    if problems:
        raise BuildError(f"{path}: the built task is not usable:\n  " + "\n  ".join(problems))
    refused = lint_problems(path, new_text) if lint else None
    if refused:  # again with the outputs: a generation-split step is vis once it shows a figure
        raise BuildError(f"{path}: {refused}")
    old_text = path.read_text(encoding="utf-8")
    changed = new_text != old_text
    if changed and write:
        path.write_text(new_text, encoding="utf-8")
    return BuildResult(path, len(step_seconds), seconds, step_seconds, changed)


def _warm_matplotlib() -> None:
    # A first matplotlib import builds the font cache and logs that on stderr; do it here, not in a step.
    try:
        import matplotlib.font_manager  # noqa: F401
    except ImportError:
        pass


def report(result: BuildResult, state: str) -> None:
    """One line per notebook, plus warnings when it is over the time budget."""
    slowest = max(result.step_seconds, default=0.0)
    took = f"{result.seconds:.1f} s (slowest step {slowest:.1f} s)"
    print(f"{state:12} {result.path}  {result.steps} steps, {took}")
    slow = [f"{i}: {s:.1f} s" for i, s in enumerate(result.step_seconds, 1) if s > STEP_SECONDS]
    if slow:
        print(f"  warning: steps over {STEP_SECONDS:.0f} s: " + ", ".join(slow))
    if result.seconds > TASK_SECONDS:
        print(f"  warning: task took over {TASK_SECONDS:.0f} s")


def build_all(
    paths: list[Path],
    timeout: int,
    *,
    write: bool,
    state: Callable[[BuildResult], str],
    lint: bool = True,
) -> tuple[int, int]:
    """Build ``paths`` in one kernelspec, a :func:`report` line each (labelled ``state(result)``);
    failures go to stderr.  Returns (failed, changed) counts."""
    spec_dir = ensure_kernelspec()
    _warm_matplotlib()
    failed = changed = 0
    for path in paths:
        try:
            result = build(path, spec_dir, timeout, write=write, lint=lint)
        except BuildError as exc:
            failed += 1
            print(f"FAILED {exc}", file=sys.stderr)
            continue
        changed += result.changed
        report(result, state(result))
    return failed, changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cibench_lab.authoring.build", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("paths", nargs="*", type=Path, help="task notebooks (default: all built-in tasks)")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; fail if any notebook would change"
    )
    parser.add_argument("--timeout", type=int, default=120, help="seconds allowed per step (default 120)")
    parser.add_argument(
        "--no-lint",
        action="store_true",
        help="re-record references of tasks the lint still flags (never for a new task)",
    )
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.paths] or default_paths()
    if not paths:
        print("no task notebooks found", file=sys.stderr)
        return 1
    changed_state = "would change" if args.check else "updated"
    failed, changed = build_all(
        paths,
        args.timeout,
        write=not args.check,
        state=lambda r: changed_state if r.changed else "unchanged",
        lint=not args.no_lint,
    )
    return 1 if failed or (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
