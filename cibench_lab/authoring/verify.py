"""Re-execute task references and compare them with the stored ones (``tasks verify``).

Each task runs in a fresh ``cibench-lab`` kernel through the engine's headless
executor, on a private copy of its data, exactly as the reference player plays
it.  Every step's fresh output is graded against the stored reference under
every profile :func:`cibench_lab.grading.grade_all` returns, and so is the
stored output itself: a step *drifts* when the fresh run fails a profile the
stored reference passes (or raises, or changes its kind of output).  Steps the
stored reference itself cannot pass (:func:`~cibench_lab.tasks.checks.known_exception`:
under ``cibench``, a text answer with no ASCII letter or digit) are counted, not failed.
Outputs whose bytes changed but still pass every profile are reported as *changed*
(drift with ``exact``).

Each task runs under its rendering (``task.rendering``, :mod:`cibench_lab.tasks.rendering`),
or the one given.  A detected rendering no verify confirmed yet that drifts on a vis step is
tried again under each other candidate (the other preset at the same dpi, then each preset
at its own); the first that verifies without drift is the verdict, and says so
(``rendering_note``).  :func:`record_renderings` writes what verified into the task
directory's sidecar (:mod:`cibench_lab.tasks.sidecar`).

A vis step whose stored reference carries no figure structure (an official notebook) while
its fresh run's image does, and which did not drift, keeps that structure (``figures``,
validated against the figure schema); :func:`record_figures` writes them beside the
rendering sidecar (:mod:`cibench_lab.tasks.reference_figures`), for the ``fair`` profile.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tasks import reference_figures, sidecar
from ..tasks.checks import known_exception
from ..tasks.model import Step, Task
from ..tasks.rendering import Rendering, TaskRendering, candidates


@dataclass
class Drift:
    step: int  # 0-based
    kind: str
    detail: str


@dataclass
class Verdict:
    """The outcome of re-executing one task."""

    task_id: str
    steps: int
    seconds: float = 0.0
    peak_rss: int | None = None  # bytes, the kernel's high-water mark
    drifts: list[Drift] = field(default_factory=list)
    changed: list[Drift] = field(default_factory=list)
    exceptions: int = 0  # documented exceptions met (step x profile)
    error: str | None = None  # the task could not be run at all
    rendering: str = ""  # the rendering it ran under (Rendering.name)
    rendering_note: str | None = None  # the task's own rendering drifted and this one did not
    #: fresh figure structures of vis steps whose stored reference has none, by 0-based step
    figures: dict[int, dict] = field(default_factory=dict, repr=False)
    #: each step's fresh outputs as a digest of their :func:`signature`, by 0-based step: two runs of
    #: a task (under two BLAS settings, bench/verify_all.py) are compared step by step with it
    digests: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not self.drifts and self.error is None


def grade_outputs(step: Step, outputs: list[dict], error: bool = False, status: str = "ok") -> dict:
    from ..grading import TurnOutput, grade_all

    return grade_all(step, [TurnOutput(step.code, list(outputs), error, status)])


def self_grade_problems(step: Step) -> list[str]:
    """Profiles under which the stored reference does not pass itself (exceptions excluded)."""
    problems = []
    for profile, g in grade_outputs(step, list(step.outputs)).items():
        if not g.get("passed") and not known_exception(profile, step.kind, step.reference.value):
            problems.append(f"{profile}: the reference fails itself ({g.get('detail')})")
    return problems


def signature(outputs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Outputs as comparable (type, content) pairs, consecutive streams merged."""
    sig: list[tuple[str, str]] = []
    for out in outputs:
        kind = out.get("output_type", "")
        if kind == "stream":
            text = out.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            name = f"stream:{out.get('name')}"
            if sig and sig[-1][0] == name:
                sig[-1] = (name, sig[-1][1] + text)
            else:
                sig.append((name, text))
            continue
        data = out.get("data") or {}
        value = data.get("image/png") or data.get("text/plain") or out.get("ename", "")
        sig.append((kind, "".join(value) if isinstance(value, list) else str(value)))
    return sig


def digest(outputs: list[dict[str, Any]]) -> str:
    """A step's outputs as one comparable string (the sha256 of their :func:`signature`)."""
    return hashlib.sha256(json.dumps(signature(outputs)).encode("utf-8")).hexdigest()


def compare_step(v: Verdict, step: Step, outputs: list[dict], error: bool, status: str, exact: bool) -> None:
    """Add one step's drifts, changes and exceptions to the task's verdict ``v``."""
    from ..tasks.format import reference_output

    if error or status != "ok":
        ename = next((o.get("ename") for o in outputs if o.get("output_type") == "error"), status)
        v.drifts.append(Drift(step.index, step.kind, f"raised {ename}"))
        return
    try:
        detected = reference_output(outputs, "fresh run", 2 * step.index + 1).kind
    except ValueError as err:
        detected = f"invalid ({err})"
    if detected != step.reference.kind:
        what = f"now outputs {detected}, reference {step.reference.kind}"
        v.drifts.append(Drift(step.index, step.kind, what))
    fresh, base = grade_outputs(step, outputs), grade_outputs(step, list(step.outputs))
    for profile, g in fresh.items():
        b = base.get(profile) or {}
        if not b.get("passed"):
            v.exceptions += 1
        elif not g.get("passed"):
            score = g.get("score")
            v.drifts.append(Drift(step.index, step.kind, f"{profile}: {g.get('detail')} (score {score})"))
    if signature(outputs) != signature(list(step.outputs)):
        (v.drifts if exact else v.changed).append(
            Drift(step.index, step.kind, "output bytes differ from the stored reference")
        )


def keep_figure(v: Verdict, step: Step, outputs: list[dict]) -> None:
    """Keep the fresh figure structure of vis ``step`` in ``v.figures`` when its stored reference
    has none and the step did not drift (a structure failing the schema is not kept)."""
    from ..grading.figure import FigureError, bundle_of, validate

    if (
        step.kind != "vis"
        or reference_figures.has_structure(step)
        or any(d.step == step.index for d in v.drifts)
    ):
        return
    i = reference_figures.image_output(outputs)
    bundle = None if i is None else bundle_of(outputs[i])
    if not isinstance(bundle, dict):
        return
    try:
        validate(bundle)
    except FigureError:
        return
    v.figures[step.index] = bundle


def peak_rss(executor) -> int | None:
    """The kernel's peak resident memory (Linux /proc), in bytes: the largest of its process
    tree's (a sandboxed kernel is a child of bubblewrap's)."""
    pid = executor.pid()
    if pid is None:
        return None
    peaks = [_vm_hwm(p) for p in _tree(pid)]
    return max((p for p in peaks if p is not None), default=None)


def _tree(pid: int) -> list[int]:
    pids, i = [pid], 0
    while i < len(pids):
        try:
            children = Path(f"/proc/{pids[i]}/task/{pids[i]}/children").read_text().split()
        except OSError:
            children = []
        pids += [int(c) for c in children]
        i += 1
    return pids


def _vm_hwm(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


async def verify_task(
    task: Task,
    workroot: Path,
    timeout: float = 120.0,
    exact: bool = False,
    rendering: Rendering | None = None,
    *,
    prelude: str = "",
) -> Verdict:
    """Re-run ``task`` under ``rendering`` (default: its own; when that is unconfirmed and
    drifts on a vis step, the first candidate that does not); ``prelude``: code each kernel runs
    after its start code, before the first step (another thread count: bench/verify_all.py)."""
    chosen = rendering or task.rendering.rendering
    verdict = await _run_task(task, workroot, timeout, exact, chosen, prelude)
    if rendering is not None or not task.rendering.needs_verify or not _vis_drift(task, verdict):
        return verdict
    vis = sorted({d.step + 1 for d in verdict.drifts if task.steps[d.step].kind == "vis"})
    for other in candidates(chosen):
        trial = await _run_task(task, workroot, timeout, exact, other, prelude)
        trial.seconds += verdict.seconds
        if trial.ok:
            steps = ", ".join(map(str, vis))
            trial.rendering_note = f"{chosen.name} drifts on vis step(s) {steps}; {other.name} verifies"
            return trial
        verdict.seconds = trial.seconds
    return verdict


def _vis_drift(task: Task, verdict: Verdict) -> bool:
    return verdict.error is None and any(task.steps[d.step].kind == "vis" for d in verdict.drifts)


async def _run_task(
    task: Task, workroot: Path, timeout: float, exact: bool, rendering: Rendering, prelude: str = ""
) -> Verdict:
    from ..kernels.executor import KernelExecutor
    from ..play.workspace import copy_data

    verdict = Verdict(task.id, len(task.steps), rendering=rendering.name)
    folder = workroot / f"{task.stem}-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    copy_data(task, folder)
    executor = KernelExecutor(folder, timeout=timeout, rendering=rendering, prelude=prelude)
    try:
        await executor.start()
        for step in task.steps:
            ex = await executor.run(step.code)
            compare_step(verdict, step, ex.outputs, ex.error, ex.status, exact)
            verdict.digests[step.index] = digest(ex.outputs)
            keep_figure(verdict, step, ex.outputs)
        verdict.peak_rss = peak_rss(executor)
    except Exception as err:  # a kernel that would not start, a dead channel, ...
        verdict.error = f"{type(err).__name__}: {err}"
    finally:
        await executor.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
    verdict.seconds = time.perf_counter() - started
    return verdict


async def verify_tasks(
    tasks: list[Task],
    jobs: int = 1,
    timeout: float = 120.0,
    exact: bool = False,
    on_done: Callable[[Verdict], None] | None = None,
    rendering: Rendering | None = None,
    *,
    prelude: str = "",
) -> list[Verdict]:
    """Verify ``tasks`` with up to ``jobs`` kernels at once; verdicts in task order
    (``rendering``: run every task under it instead of its own; ``prelude``: see :func:`verify_task`)."""
    gate = asyncio.Semaphore(max(1, jobs))
    with tempfile.TemporaryDirectory(prefix="cibench-verify-") as tmp:

        async def one(task: Task) -> Verdict:
            async with gate:
                verdict = await verify_task(task, Path(tmp), timeout, exact, rendering, prelude=prelude)
            if on_done:
                on_done(verdict)
            return verdict

        return list(await asyncio.gather(*(one(t) for t in tasks)))


def task_root(task: Task) -> Path:
    """The task directory holding ``task`` (``<root>/<split>/<lib>/<stem>.ipynb``), as the library
    reads its sidecar."""
    return task.path.resolve().parent.parent.parent


def record_renderings(tasks: list[Task], verdicts: list[Verdict]) -> dict[str, Path]:
    """Record the rendering each verified task ran under in its directory's sidecar, as confirmed
    — unless its notebook declares one; returns the files written, by task id."""
    by_root: dict[Path, dict[str, TaskRendering]] = {}
    for task, v in zip(tasks, verdicts, strict=True):
        if not v.ok or task.rendering.basis == "declared":
            continue
        used = _named(task, v.rendering)
        if task.rendering.verified and used == task.rendering.rendering:
            continue
        detail = v.rendering_note or task.rendering.detail
        basis = task.rendering.basis if used == task.rendering.rendering else "sidecar"
        by_root.setdefault(task_root(task), {})[task.id] = TaskRendering(used, basis, True, detail)
    written = {}
    for root, entries in by_root.items():
        path = sidecar.update(root, entries)
        written.update({task_id: path for task_id in entries})
    return written


def record_figures(tasks: list[Task], verdicts: list[Verdict]) -> dict[str, tuple[Path, int]]:
    """Record each task's kept figure structures (:func:`keep_figure`) for its notebook's
    content; returns the file written and the count recorded, by task id."""
    written = {}
    for task, v in zip(tasks, verdicts, strict=True):
        if v.figures:
            path = reference_figures.record(task_root(task), task.id, task.content_hash, v.figures)
            written[task.id] = (path, len(v.figures))
    return written


def _named(task: Task, name: str) -> Rendering:
    from ..tasks.rendering import parse

    return parse(name) if name else task.rendering.rendering
