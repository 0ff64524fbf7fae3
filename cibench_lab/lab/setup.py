"""A task kernel and notebook in the lab, prepared as the task's benchmark prepares its kernel.

:class:`KernelSetup` gives the lab's hidden start (:func:`.hidden.run_hidden`) of every task kernel —
on Start and on every restore (a restart, a resume, a reopened notebook) — the task's start code and
what its benchmark runs after it (:meth:`.Benchmark.start_codes`: e.g. a start code of its own and a
turn it plays before the person's first).  The outputs such a prior turn printed on the kernel
become a read-only, already-run ``prior`` cell above the answer cell of the attempt's notebook (not a
turn, not graded); a benchmark that words its tasks itself rewords the title and instruction cells
(:meth:`.Benchmark.notebook_words`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell

from ..benchmarks import benchmark_of
from ..grading import TurnOutput
from ..kernels.spec import start_code
from ..play.safe_outputs import safe_outputs
from ..play.workspace import CELL_KEY, attempt_notebook, write_notebook
from ..tasks import literal
from ..tasks.model import Task
from ..tasks.vocabulary import Mode
from .hidden import run_hidden

PRIOR = "prior"  # the cell role of a prior turn (a turn the benchmark plays before the person's first)
_KEPT = 64  # prior turns kept between a kernel's start and its notebook's writing


def check_mode(task: Task, mode: Mode) -> None:
    """A mode the task's benchmark plays (BadInput otherwise)."""
    benchmark_of(task).check_mode(task, mode)


def prior_code(task: Task) -> str | None:
    """The code of a turn the task's benchmark plays before the person's first (None: none)."""
    return benchmark_of(task).prior_code(task)


def setup_codes(task: Task, prior_turn: bool = True) -> list[str]:
    """What the task's kernel runs after the start code (:meth:`.Benchmark.start_codes`)."""
    return benchmark_of(task).start_codes(task, prior_turn)


class KernelSetup:
    """The hidden start of a task kernel, and the prior turn it ran for the attempt's notebook."""

    def __init__(self) -> None:
        self.priors: OrderedDict[str, TurnOutput] = OrderedDict()

    def runner(
        self, km: Any, kernel_id: str, attempt_id: str, task: Task, timeout: float, counted: bool
    ) -> Callable[[list[str]], Awaitable[list[TurnOutput]]]:
        """What the driver's restore runs its cells with: hidden, after :meth:`codes`.  ``counted``
        (a player's attempt): no prior turn at setup, the player's session proposes it as turn 0."""

        async def run(codes: list[str]) -> list[TurnOutput]:
            setup = self.codes(task, not counted)
            # a person's prior turn is the notebook's first run (its cell shows [1]): counted
            with_prior = not counted and prior_code(task) is not None
            prior = frozenset({len(setup) - 1}) if with_prior else frozenset()
            ran = await run_hidden(km, kernel_id, [*setup, *codes], timeout, counted, prior)
            return self.ran(attempt_id, task, ran, len(setup), not counted)

        return run

    def codes(self, task: Task, prior_turn: bool = True) -> list[str]:
        return [start_code(task.rendering.rendering), *setup_codes(task, prior_turn)]

    def ran(
        self, attempt_id: str, task: Task, ran: list[TurnOutput], n: int, prior_turn: bool
    ) -> list[TurnOutput]:
        """What ran after the ``n`` setup codes; a prior turn's run is kept (``prior_turn``)."""
        if prior_turn and prior_code(task) is not None and len(ran) >= n:
            self.priors[attempt_id] = ran[n - 1]
            while len(self.priors) > _KEPT:
                self.priors.popitem(last=False)
        return ran[n:]

    def write_notebook(
        self, task: Task, attempt_id: str, mode: Mode, path: Path, player: str, language: dict
    ) -> nbformat.NotebookNode:
        """Write the attempt's notebook (:func:`.workspace.attempt_notebook`) — in its benchmark's
        words, with its prior turn's cell — and return it as written: what the server signs, never
        what the file holds by then (its folder is the kernel's)."""
        nb = attempt_notebook(task, attempt_id, mode, player, language)
        words = benchmark_of(task).notebook_words(task)
        if words is not None:
            reword(nb, task, words, self.priors.pop(attempt_id, None))
        write_notebook(nb, path)
        return nb


def reword(nb: nbformat.NotebookNode, task: Task, words: tuple[str, str], prior: TurnOutput | None) -> None:
    """Reword the title and instruction cells in the benchmark's ``words`` (subtitle, instruction);
    insert the prior turn's cell."""
    title, instruction = nb.cells[0], nb.cells[1]
    how = title.source.rsplit(" · ", 1)[-1]
    subtitle, instruction.source = words
    title.source = f"# {literal.inline(task.title)}\n\n{subtitle} · {how}"
    if prior is not None:
        nb.cells.insert(2, prior_cell(prior))


def prior_cell(ran: TurnOutput) -> nbformat.NotebookNode:
    """The prior turn as an already-run, read-only code cell (its outputs as the kernel printed them,
    kept to what runs nothing in a browser: :mod:`.safe_outputs`), the kernel's first counted run: ``[1]``."""
    cell = new_code_cell(
        ran.code,
        execution_count=1,
        metadata={"editable": False, "deletable": False, CELL_KEY: {"role": PRIOR, "step": 0}},
    )
    cell.outputs = [nbformat.from_dict(o) for o in safe_outputs(ran.outputs)]
    return cell
