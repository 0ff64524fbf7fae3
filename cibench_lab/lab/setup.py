"""A Qwen benchmark task's kernel and notebook in the lab, prepared as the original prepares its kernel.

Qwen's Code Interpreter Benchmark (``tasks/qwen.py``) starts its kernel inside ``upload_file/``
and runs a start code there (imports, ``sns.set_theme()``, matplotlib asked for SimHei); an
*easy* visualization item's first assistant turn, carried in its query, runs before the model
starts.  :class:`KernelSetup` gives the lab's hidden start (:func:`.hidden.run_hidden`) of
every task kernel — on Start and on every restore (a restart, a resume, a reopened notebook) —
the task's start code and, for a Qwen task, :data:`QWEN_START` and the prior turn's code; the
outputs that prior turn printed on the kernel become a read-only, already-run ``prior`` cell above
the answer cell of the attempt's notebook (not a turn, not graded).

Differences from the original, for a person: SimHei is not to be had offline, so the kernel's
matplotlib gets Noto Sans CJK under that name (:mod:`.fonts`, recorded in the attempt's
``environment.fonts.cjk``), kept as ``font.family``'s last fallback after any reset of matplotlib's
settings (the original loses it at a person's ``sns.set_theme()``); the instruction lists the files
with their paths inside ``upload_file/``, since a person's code is run as typed (a model's has each
basename rewritten to its path, as the original does); no per-run alarm (the lab's ``turn_timeout``
stops a run).
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
from ..models.qwen_react import prior_turn_code
from ..play.safe_outputs import safe_outputs
from ..play.workspace import CELL_KEY, attempt_notebook, write_notebook
from ..tasks import literal
from ..tasks.model import Task
from ..tasks.qwen import VERSION, WORKDIR, question_of, qwen_item
from .hidden import run_hidden

PRIOR = "prior"  # the cell role of an easy item's prior turn
_KEPT = 64  # prior turns kept between a kernel's start and its notebook's writing
_FAMILY_WORDS = {"qwen-vis": "visualization", "qwen-math": "math", "qwen-general": "general"}


def check_mode(task: Task, mode: str) -> None:
    """A mode the task's benchmark plays (BadInput otherwise: a Qwen task is end-to-end only)."""
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
        self, task: Task, attempt_id: str, mode: str, path: Path, player: str, language: dict
    ) -> nbformat.NotebookNode:
        """Write the attempt's notebook (:func:`.workspace.attempt_notebook`) — a Qwen task's in
        its words, with its prior turn's cell — and return it as written: what the server signs,
        never what the file holds by then (its folder is the kernel's)."""
        nb = attempt_notebook(task, attempt_id, mode, player, language)
        if qwen_item(task) is not None:
            qwen_notebook(nb, task, self.priors.pop(attempt_id, None))
        write_notebook(nb, path)
        return nb


def qwen_notebook(nb: nbformat.NotebookNode, task: Task, prior: TurnOutput | None) -> None:
    """Reword the title and instruction cells for a Qwen task; insert the prior turn's cell."""
    item = qwen_item(task) or {}
    title, instruction = nb.cells[0], nb.cells[1]
    how = title.source.rsplit(" · ", 1)[-1]
    family = _FAMILY_WORDS.get(item.get("family", ""), "")
    benchmark = f"*Qwen Code Interpreter Benchmark ({VERSION}) · {family} · {how}"
    title.source = f"# {literal.inline(task.title)}\n\n{benchmark}"
    instruction.source = instruction_text(item)
    if prior is not None:
        nb.cells.insert(2, prior_cell(prior))


def instruction_text(item: dict) -> str:
    """The item's family and difficulty, its question (shown literally: :mod:`..tasks.literal`), and
    its files inside ``upload_file/``."""
    family = _FAMILY_WORDS.get(item.get("family", ""), "")
    level = f" ({item['difficulty']})" if item.get("difficulty") else ""
    text = f"**{family}{level}**\n\n{literal.block(question_of(item['query']).strip())}"
    files = list(item.get("input_file_path", []))
    if files:
        names = ", ".join(f"`{f}`" for f in files)
        text += f"\n\n*Files: {names} (the kernel runs in `{WORKDIR}/`)*"
    if prior_turn_code(item["query"], files) is not None:
        text += "\n\n*The first turn already ran: its cell below is read-only.*"
    return text


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
