"""The task notebook ``tasks new`` writes from a teacher's solution (:mod:`.solution`).

CIBench's layout, nothing of the teacher's notebook but its steps: instruction and solution
cells alternate, each code cell with the outputs the solution showed in the task kernel;
``step_types`` (tagged or inferred kinds) and ``modules`` (what each step's code uses, read
with :mod:`.plotcode`) in the notebook metadata; our ``cibench_lab`` metadata with the title,
intro, language, libraries, data files, the plot rendering the outputs were made with and,
per vis step, the plot elements the solution sets and the instruction names (graded beside
the figure's data).  The lint's flags are said back in the teacher's cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from .lint import LintFlag
from .plot import ELEMENTS
from .plotcode import CodeFacts
from .rendering import Rendering
from .solution import LIBRARY_IMPORTS, Refusal, Solution
from .wording import names_element, names_family

#: A top-level import -> the ``modules`` name a step is told to use (CIBench's words).
MODULE_NAMES = {
    "pandas": "pandas",
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "seaborn": "seaborn",
    "scipy": "scipy",
    "sklearn": "sklearn",
    "lightgbm": "lightgbm",
    "nltk": "nltk",
    "cv2": "opencv",
    "torch": "pytorch",
    "torchvision": "pytorch",
    "tensorflow": "tensorflow",
    "keras": "tensorflow",
    "skimage": "skimage",
    "PIL": "PIL",
}


@dataclass
class TaskPlan:
    """What the run decided, per step: kind, outputs, modules and declared plot elements."""

    lib: str
    language: str
    kinds: list[str] = field(default_factory=list)
    outputs: list[list[dict]] = field(default_factory=list)
    modules: list[tuple[str, ...]] = field(default_factory=list)
    elements: dict[int, list[str]] = field(default_factory=dict)
    data_files: list[str] = field(default_factory=list)


def step_modules(facts: CodeFacts, lib: str) -> tuple[str, ...]:
    """The modules a step uses, the task's library first (``python`` when it uses none)."""
    names = list(dict.fromkeys(MODULE_NAMES[m] for m in sorted(facts.uses) if m in MODULE_NAMES))
    order = sorted(names, key=lambda name: (name != lib, list(MODULE_NAMES.values()).index(name)))
    return tuple(order) or ("python",)


def libraries(plan: TaskPlan) -> list[str]:
    """The task's libraries as the listing shows them: its library, then the others its steps use."""
    used = [m for mods in plan.modules for m in mods if m != "python"]
    return list(dict.fromkeys([plan.lib, *used]))


def plot_elements(instruction: str, facts: CodeFacts) -> list[str]:
    """A vis step's declared elements: each the solution sets that the instruction names, and the
    chart type when the instruction names every chart the solution draws."""
    found = {element.split(":")[0] for element in facts.elements} - {"chart_type"}
    named = [e for e in ELEMENTS if e in found and names_element(e, instruction)]
    if all(names_family(family, instruction, call) for family, call in facts.families.items()):
        named.append("chart_type")
    return named


def task_notebook(
    solution: Solution, plan: TaskPlan, kernelspec: dict[str, str], rendering: Rendering
) -> nbformat.NotebookNode:
    """The task notebook; before the run (no kinds in ``plan``) without outputs, kinds or modules."""
    cells = []
    for step in solution.steps:
        outputs = plan.outputs[step.index] if plan.kinds else []
        cells.append(new_markdown_cell(step.instruction))
        cells.append(new_code_cell(step.code, outputs=_numbered(outputs, step.index + 1)))
        cells[-1].execution_count = step.index + 1 if plan.kinds else None
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = kernelspec
    nb.metadata["language_info"] = {"name": "python"}
    if plan.kinds:
        nb.metadata["step_types"] = list(plan.kinds)
        nb.metadata["modules"] = [" & ".join(m) for m in plan.modules]
    nb.metadata["cibench_lab"] = _meta(solution, plan, rendering)
    return nb


def _meta(solution: Solution, plan: TaskPlan, rendering: Rendering) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "schema_version": 1,
        "title": solution.title,
        "intro": solution.intro,
        "language": plan.language,
        "libraries": libraries(plan) if plan.modules else [plan.lib],
        "data_files": list(plan.data_files),
        "rendering": rendering.record(),
    }
    if plan.elements:
        meta["plot_elements"] = {str(i): e for i, e in sorted(plan.elements.items())}
    return meta


def _numbered(outputs: list[dict], count: int) -> list[dict]:
    """The outputs with an ``execute_result`` numbered as its cell is."""
    numbered = []
    for out in outputs:
        out = nbformat.from_dict(dict(out))
        if out.get("output_type") == "execute_result":
            out["execution_count"] = count
        numbered.append(out)
    return numbered


def lint_refusals(flags: list[LintFlag], solution: Solution) -> list[Refusal]:
    """Each flag of the task notebook's lint, in the teacher's cells and words."""
    refused = []
    for flag in flags:
        if flag.step is None:
            refused.append(Refusal(None, _teacher(flag.message)))
            continue
        step = solution.steps[flag.step]
        cell = step.code_cell if flag.cell is not None and flag.cell % 2 else step.instruction_cell
        refused.append(Refusal(cell, f"step {flag.step + 1}: {_teacher(flag.message)}"))
    return refused


def _teacher(message: str) -> str:
    return message.replace("the reference code", "the solution").replace("the reference", "the solution")


def uses_library(facts: CodeFacts, lib: str) -> bool:
    return bool(LIBRARY_IMPORTS.get(lib, frozenset({lib})) & facts.uses)
