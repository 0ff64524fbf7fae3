"""A teacher's solution notebook, read as the steps of a new task (``cibench-lab tasks new``).

The pairing rule (docs/tasks-new.md): cells are read top to bottom, blank cells skipped.

- When the first two cells are both markdown, the first is the task's intro (one cell, no more)
  and the second step 1's instruction; otherwise there is no intro. The intro's first line, when
  it is a level-1 ``# heading``, is the task's title and the rest the intro; else the whole cell
  is the intro and the title is the notebook's file name (``_`` as a space), as without one.
- Then each markdown cell followed by one code cell is a step: the markdown is the instruction,
  the code the solution (the reference).  An instruction with no code cell after it, a code
  cell with no instruction before it, a second code cell after one instruction and a raw cell
  are refused, each naming its cell.
- A tag ``cibench:exec``, ``cibench:num``, ``cibench:text`` or ``cibench:vis`` on either cell of
  a step sets its kind; otherwise the kind is inferred from what the solution prints
  (:mod:`.stepkind`).

Cells are numbered from 1 as the notebook shows them, top to bottom, blank ones included, so
"cell 7" is the seventh cell a teacher sees.  Nothing is run here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from .model import METRIC_KINDS

TAG_PREFIX = "cibench:"
#: The libraries a task is filed under (``<split>/<lib>/<stem>``): CIBench's ten.
Library = Literal[
    "lightgbm",
    "matplotlib",
    "nltk",
    "opencv",
    "pandas",
    "pytorch",
    "scipy",
    "seaborn",
    "sklearn",
    "tensorflow",
]
LIBRARIES: tuple[str, ...] = get_args(Library)
#: A library -> the top-level import names that use it (the others: their own name).
LIBRARY_IMPORTS = {
    "opencv": frozenset({"cv2"}),
    "pytorch": frozenset({"torch", "torchvision", "torchaudio"}),
    "tensorflow": frozenset({"tensorflow", "keras", "tf_keras"}),
}
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Refusal:
    """Why a notebook cannot become a task: its 1-based cell (None: the notebook as a whole)."""

    cell: int | None
    message: str

    def line(self) -> str:
        return self.message if self.cell is None else f"cell {self.cell}: {self.message}"


@dataclass(frozen=True)
class SolutionStep:
    index: int  # 0-based
    instruction_cell: int  # 1-based cells of the teacher's notebook
    code_cell: int
    instruction: str
    code: str
    tag: str | None  # the kind a cell tag sets, if any


@dataclass
class Solution:
    """The teacher's notebook, read: its title, intro and steps, and what is refused in it."""

    path: Path
    title: str
    intro: str
    steps: list[SolutionStep] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _tag(cells: list[tuple[int, dict]], refusals: list[Refusal]) -> str | None:
    """The kind the cells' ``cibench:`` tags set (a refusal for an unknown or a second kind)."""
    kinds: list[tuple[int, str]] = []
    for number, cell in cells:
        tags = (cell.get("metadata") or {}).get("tags") or []
        for tag in tags if isinstance(tags, list) else []:
            if not isinstance(tag, str) or not tag.startswith(TAG_PREFIX):
                continue
            kind = tag[len(TAG_PREFIX) :]
            if kind in METRIC_KINDS:
                kinds.append((number, kind))
            else:
                known = ", ".join(TAG_PREFIX + k for k in METRIC_KINDS)
                refusals.append(Refusal(number, f"unknown tag `{tag}` (a step's kind tag is one of {known})"))
    if len({k for _, k in kinds}) > 1:
        named = " and ".join(f"{TAG_PREFIX}{k}" for _, k in kinds)
        refusals.append(Refusal(kinds[-1][0], f"tags {named} set two kinds for one step"))
    return kinds[0][1] if kinds else None


def _intro(cells: list[tuple[int, dict]], stem: str) -> tuple[str, str, int]:
    """Title, intro and how many cells they took (0 or 1)."""
    if len(cells) < 2 or cells[0][1].get("cell_type") != "markdown":
        return stem, "", 0
    if cells[1][1].get("cell_type") != "markdown":
        return stem, "", 0
    lines = _source(cells[0][1]).strip().splitlines()
    heading = _HEADING.match(lines[0]) if lines else None
    if heading is None:
        return stem, "\n".join(lines).strip(), 1
    return heading.group(1), "\n".join(lines[1:]).strip(), 1


def _pair(cells: list[tuple[int, dict]], solution: Solution) -> None:
    """The steps of ``cells`` (the intro left out), by the pairing rule."""
    pending: tuple[int, dict] | None = None
    last_code: int | None = None
    for number, cell in cells:
        kind = cell.get("cell_type")
        if kind == "markdown":
            if pending is not None:
                solution.refusals.append(Refusal(pending[0], "an instruction with no code cell after it"))
            pending, last_code = (number, cell), None
        elif kind == "code" and pending is not None:
            tag = _tag([pending, (number, cell)], solution.refusals)
            step = SolutionStep(
                len(solution.steps), pending[0], number, _source(pending[1]).strip(), _source(cell), tag
            )
            solution.steps.append(step)
            pending, last_code = None, number
        elif kind == "code":
            solution.refusals.append(Refusal(number, _orphan(last_code, len(solution.steps))))
        else:
            solution.refusals.append(
                Refusal(number, f"a {kind} cell: a task has markdown and code cells only")
            )
    if pending is not None:
        solution.refusals.append(Refusal(pending[0], "an instruction with no code cell after it"))


def _orphan(last_code: int | None, steps: int) -> str:
    if last_code is None:
        return "a code cell with no instruction before it (each step is a markdown cell, then its code cell)"
    return (
        f"a second code cell after step {steps}'s instruction: a step has one code cell "
        "(merge them, or give this one an instruction of its own)"
    )


def read_solution(nb: dict, path: Path) -> Solution:
    """The steps of the teacher's notebook ``nb`` (nbformat 4, as read from ``path``)."""
    cells = [(i, c) for i, c in enumerate(nb.get("cells") or [], start=1) if _source(c).strip()]
    title, intro, used = _intro(cells, path.stem.replace("_", " "))
    solution = Solution(path, title, intro)
    _pair(cells[used:], solution)
    if not solution.steps and not solution.refusals:
        solution.refusals.append(
            Refusal(None, "no steps: a task is markdown instruction cells, each followed by its code cell")
        )
    return solution


def syntax_refusals(solution: Solution) -> list[Refusal]:
    """A step whose code does not parse (IPython's ``%`` and ``!`` lines aside)."""
    refused = []
    for step in solution.steps:
        try:
            ast.parse(_python(step.code))
        except SyntaxError as err:
            where = f" (line {err.lineno})" if err.lineno else ""
            refused.append(Refusal(step.code_cell, f"step {step.index + 1} does not parse: {err.msg}{where}"))
    return refused


def _python(code: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())


def imports(code: str) -> list[str]:
    """The top-level modules ``code`` imports (absolute imports), in order (none if it does not parse)."""
    try:
        tree = ast.parse(_python(code))
    except SyntaxError:
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    return list(dict.fromkeys(names))


def stem_of(path: Path) -> str:
    """The task's stem: the notebook's name in lower case, other characters than a-z, 0-9 as ``_``."""
    return re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_")


def library_uses(uses: list[set[str]]) -> dict[str, int]:
    """Per library of the ten, in how many steps it is used (``uses``: each step's modules), in
    the order they are first used."""
    counts: dict[str, int] = {}
    for used in uses:
        for lib in LIBRARIES:
            if LIBRARY_IMPORTS.get(lib, frozenset({lib})) & used:
                counts[lib] = counts.get(lib, 0) + 1
    return counts


def choose_library(uses: list[set[str]], given: str | None) -> str | Refusal:
    """``given`` when it is one of the ten; else the one the most steps use (a tie: the first used)."""
    choices = ", ".join(LIBRARIES)
    if given is not None:
        return given if given in LIBRARIES else Refusal(None, f"--lib {given}: not one of {choices}")
    counts = library_uses(uses)
    if not counts:
        return Refusal(None, f"the solution uses none of the task libraries ({choices}): name one with --lib")
    return max(counts, key=lambda lib: counts[lib])  # max keeps the first of equal counts
