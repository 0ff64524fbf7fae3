"""Grading off the engine thread: what :func:`~.profile.grade_all` returns, computed elsewhere.

A :class:`Grader` grades a step's turns without holding the engine's one worker
thread (DB transitions) or the event loop:

* turns with an image, or with much output, go to a bounded pool of worker
  processes started at a lower CPU priority (``os.nice``), so decoding and SSIM
  of a 5000×5000 plot never compete with the server for the GIL nor, at equal
  load, for a core;
* other turns (no image, little text: a millisecond of work) go to one thread
  of the grader's own, which saves the process round trip;
* the optional VLM judge (network I/O) is awaited on the event loop through the
  injected :class:`~.judge.Judge`, before the grade that records its verdict.

The pool is started on the first heavy turn, with the ``forkserver`` start
method where there is one (else ``spawn``): no fork of a process that runs
tornado's loop and threads.  A pool broken by a dying worker is replaced, and
the turn graded again once on the new one.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..tasks.model import Step
from . import lifeline
from .judge import Judge, Verdicts
from .profile import grade_all
from .turn import TurnOutput
from .warm import warm

log = logging.getLogger(__name__)

#: Default number of grading processes (each may need ~2 GB for a 25-megapixel plot).
WORKERS = 2
#: How much lower than the server the grading processes run (``os.nice`` increment).
NICENESS = 10
#: Output characters above which a turn without images is graded in a process too.
HEAVY_CHARS = 200_000


class Grader:
    """Every profile's grade of a step's turns, off the engine thread; ``close()`` when done."""

    def __init__(self, judge: Judge | None = None, workers: int = WORKERS, niceness: int = NICENESS):
        if workers < 1:
            raise ValueError("workers: must be at least 1")
        self.verdicts = Verdicts(judge)
        self.workers = workers
        self.niceness = niceness
        self._light = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cibench-grade")
        self._processes: ProcessPoolExecutor | None = None
        self.warmed: Future | None = None

    def warm(self) -> Future:
        """Load the text-grading libraries on the grader's thread (returns at once; a turn
        graded meanwhile waits behind it, no longer than it would have anyway)."""
        if self.warmed is None:
            self.warmed = self._light.submit(warm)
            self.warmed.add_done_callback(_warm_failed)
        return self.warmed

    def warm_processes(self) -> None:
        """Start a grading process now (its initializer loads the image libraries, seconds), so the
        first plot graded does not wait for it; the lab calls this when an attempt with a plot
        step starts. Does nothing once the pool is running."""
        if self._processes is None:
            self.processes().submit(_ready).add_done_callback(_warm_failed)

    async def grade(self, step: Step, turns: list[TurnOutput]) -> dict[str, dict]:
        """``grade_all(step, turns)``, with the judge's verdict when a judge is configured."""
        verdict = await self.verdicts.for_step(step, turns)
        if not heavy(turns):
            return await _run_in(self._light, step, turns, verdict)
        try:
            return await _run_in(self.processes(), step, turns, verdict)
        except BrokenProcessPool:
            log.warning("cibench-lab: a grading process died; grading the turn again on a new pool")
            self._replace_pool()
            return await _run_in(self.processes(), step, turns, verdict)

    def processes(self) -> ProcessPoolExecutor:
        """The pool of grading processes, started on first use."""
        if self._processes is None:
            self._processes = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=_owned_context(),
                initializer=_start_worker,
                initargs=(self.niceness,),
            )
        return self._processes

    def _replace_pool(self) -> None:
        broken, self._processes = self._processes, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (a grade in flight is abandoned)."""
        self._light.shutdown(wait=False, cancel_futures=True)
        self._replace_pool()


def _warm_failed(done: Future) -> None:
    if not done.cancelled() and done.exception() is not None:
        log.warning("cibench-lab: the grading libraries could not be loaded ahead", exc_info=done.exception())


def heavy(turns: list[TurnOutput]) -> bool:
    """Would grading these turns decode an image or read much text?"""
    chars = 0
    for turn in turns:
        for out in turn.outputs:
            data = out.get("data") or {}
            if "image/png" in data:
                return True
            chars += _size(out.get("text")) + _size(data.get("text/plain"))
            if chars > HEAVY_CHARS:
                return True
    return False


def _size(value: Any) -> int:
    if isinstance(value, list):
        return sum(len(v) for v in value if isinstance(v, str))
    return len(value) if isinstance(value, str) else 0


async def _run_in(pool: Executor, step: Step, turns: list[TurnOutput], verdict: dict | None) -> dict:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, grade_all, step, turns, verdict)


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _owned_context() -> multiprocessing.context.BaseContext:
    """The pool's context, its forkserver (started on first use) tied to this process: it and the
    grading processes end when this process does, SIGKILL included (:mod:`.lifeline`)."""
    context = _context()
    os.environ[lifeline.OWNER_VAR] = str(os.getpid())
    if isinstance(context, multiprocessing.context.ForkServerContext):
        context.set_forkserver_preload([lifeline.__name__])
    return context


def _ready() -> None:
    """Nothing: a task that makes the pool start a process (``Grader.warm_processes``)."""


def _start_worker(niceness: int) -> None:
    """A grading process: lower priority, then the image libraries loaded once."""
    if niceness and hasattr(os, "nice"):
        os.nice(niceness)
    import jsonschema  # noqa: F401  (figure structures: grading/figure.py)
    import PIL.Image  # noqa: F401
    import scipy.ndimage  # noqa: F401
    import skimage.metrics  # noqa: F401
    import skimage.transform  # noqa: F401

    from .own import all_rules

    all_rules()  # the benchmarks' own grading rules, found once (grading/own.py)
