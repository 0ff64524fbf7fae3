"""The task lint: an instruction must say what its reference does, from the notebook alone.

Nothing is run.  Each step's reference code is read with :mod:`ast`
(:mod:`cibench_lab.tasks.plotcode`) and its instruction with keyword lists in English and
Chinese (:mod:`cibench_lab.tasks.wording`).  A flag is raised for:

- ``<element>`` (an :data:`~cibench_lab.tasks.plot.ELEMENTS` name): a vis step's reference
  sets that element explicitly (a title, the x or y axis label, a legend, colours, a colour bar,
  ticks, the figure size; the chart type is the drawing call itself) and the instruction
  does not name it; or it names the element but not the literal value the reference
  writes (a title, axis-label, legend-entry or colour-bar text; a colour or colormap);
- ``style``: a step's reference sets a theme or style that changes later figures
  (``sns.set_theme``, ``plt.style.use``, ``rcParams``) and its instruction does not say so;
- ``placeholder``: an instruction (or the task's title or intro) keeps a template leftover
  (``{{x}}``, ``[]``, ``{}``, ``{name}``, empty quotes);
- ``module``: the step's ``modules`` ("Please use X modules." / "请用 X 模块.") names a
  module its reference does not use, or a vis step names pandas or seaborn while another
  library draws, or draws with pandas or seaborn without naming it; likewise when the
  instruction itself says which library draws ("with pandas", "`sns.histplot`");
- ``declared``: ``metadata.cibench_lab.plot_elements`` declares an element the instruction
  does not name, a name outside the vocabulary, or a step that is not a vis step (an old
  ``axis_labels`` declares both axis labels);
- ``split``, ``range``, ``plot_api``: a choice that changes the graded answer and that the
  instruction leaves open — a split by fraction without its sizes or rounding, a fixed colour
  range, pandas' ``.plot`` or matplotlib's ``plot`` for a line of pandas data
  (:mod:`cibench_lab.tasks.choices`).

A vis step is one whose ``step_types`` entry is ``vis``, whose reference output is an image,
or — in a notebook with no kinds and no outputs recorded yet (a generation-split task
before its build) — whose code draws a chart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .choices import ChoiceFacts, plot_api_messages, range_messages, read_choices, split_messages
from .model import Step, Task
from .plot import ELEMENTS, LEGACY, current
from .plotcode import CodeFacts, read_notebook
from .qwen import is_qwen
from .wording import (
    drawing_apis,
    names_colour,
    names_column,
    names_element,
    names_family,
    names_style,
    placeholders,
)

#: A ``modules`` entry -> the top-level import names that count as using it.
MODULE_IMPORTS: dict[str, frozenset[str]] = {
    "pytorch": frozenset({"torch", "torchvision", "torchaudio", "torchtext"}),
    "torch": frozenset({"torch", "torchvision"}),
    "tensorflow": frozenset({"tensorflow", "keras", "tf_keras"}),
    "keras": frozenset({"keras", "tensorflow"}),
    "opencv": frozenset({"cv2"}),
    "cv2": frozenset({"cv2"}),
    "sklearn": frozenset({"sklearn"}),
    "scikit-learn": frozenset({"sklearn"}),
    "pillow": frozenset({"PIL"}),
    "PIL": frozenset({"PIL"}),
}
#: Modules a step always "uses" (the language itself).
ALWAYS_USED = frozenset({"python", "python3"})
#: Modules whose objects reach a step from anywhere (skimage returns numpy arrays, sklearn
#: pandas frames): a step uses them when it refers to any variable an earlier statement
#: bound, not only through their import name.
DATA_MODULES = frozenset({"numpy", "pandas"})
PLOT_LIBRARIES = ("matplotlib", "pandas", "seaborn")


@dataclass(frozen=True)
class LintFlag:
    """One thing an instruction does not say.  ``cell`` is the notebook cell (None: the
    task's metadata), ``step`` 0-based (shown 1-based), ``kind`` an element or
    ``style`` / ``placeholder`` / ``module`` / ``declared``."""

    file: str
    cell: int | None
    step: int | None
    kind: str
    message: str

    def line(self) -> str:
        where = f"{self.file}:{self.cell}" if self.cell is not None else f"{self.file}:metadata"
        step = f" step {self.step + 1}:" if self.step is not None else ""
        return f"{where}:{step} {self.message}"


def _flag(task: Task, step: Step | None, kind: str, message: str, code: bool = True) -> LintFlag:
    if step is None:
        return LintFlag(str(task.path), None, None, kind, message)
    return LintFlag(str(task.path), 2 * step.index + int(code), step.index, kind, message)


def _evidence(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items[:2]) + (", ..." if len(items) > 2 else "")


# --------------------------------------------------------------------------- vis elements


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _named(element: str, text: str, facts: CodeFacts) -> bool:
    if element.startswith("ticks:") and names_element("ticks", text):
        return True
    if element != "colors":
        return names_element(element, text)
    if names_element("colors", text, facts.bound):
        return True
    own = [e for e in facts.elements["colors"] if not e.endswith("(hue=)")]
    # hue='sex' and "split by `sex`": seaborn colours the groups itself
    return not own and any(names_column(column, text) for column in facts.hue)


_ASPECT = {"ticks:scale": "ticks (the axis scale)", "ticks:limits": "ticks (the axis limits)"}


def _element_flags(task: Task, step: Step, facts: CodeFacts) -> list[LintFlag]:
    text, flags = step.instruction, []
    for element, evidence in facts.elements.items():
        if element == "chart_type" or _named(element, text, facts):
            continue
        what = _ASPECT.get(element, element)
        message = f"{what} set by the reference ({_evidence(evidence)}) but not named by the instruction"
        flags.append(_flag(task, step, element.split(":")[0], message))
    for family, call in facts.families.items():
        if not names_family(family, text, call):  # e.g. "a bar chart ... with a dashed line": both named
            message = (
                f"chart_type: a {family} chart drawn by the reference ({call}) not named by the instruction"
            )
            flags.append(_flag(task, step, "chart_type", message))
    return flags + _text_flags(task, step, facts)


def _gives(text: str, instruction: str) -> bool:
    """The instruction writes this text as a whole ('correct' is not given by "correctly")."""
    return re.search(rf"(?<!\w){re.escape(text)}(?!\w)", instruction) is not None


def _text_flags(task: Task, step: Step, facts: CodeFacts) -> list[LintFlag]:
    """A title, axis label or colour the instruction names, but whose literal value it does not give."""
    instruction, flags = _normal(step.instruction), []
    for element in ("title", "x_label", "y_label", "colors", "legend", "colorbar"):
        if element not in facts.elements or not names_element(element, step.instruction, facts.bound):
            continue
        if element == "legend" and all(e.endswith("(legend=)") for e in facts.elements["legend"]):
            continue  # legend=False/True: no entries of the reference's own
        if element == "colors":
            missing = [t for t in facts.texts.get(element, []) if not names_colour(t, step.instruction)]
        else:
            missing = [t for t in facts.texts.get(element, []) if not _gives(_normal(t), instruction)]
        missing = list(dict.fromkeys(missing))
        if missing:
            quoted = ", ".join(repr(t) for t in missing[:3])
            flags.append(
                _flag(
                    task,
                    step,
                    element,
                    f"{element} text {quoted} set by the reference but not given by the instruction",
                )
            )
    return flags


def _style_flags(task: Task, step: Step, facts: CodeFacts) -> list[LintFlag]:
    if not facts.styles or names_style(step.instruction):
        return []
    return [
        _flag(
            task,
            step,
            "style",
            f"style set by the reference ({_evidence(facts.styles)}) "
            "but not named by the instruction (it changes every later figure)",
        )
    ]


# --------------------------------------------------------------------------- modules


def _imports(module: str) -> frozenset[str]:
    return MODULE_IMPORTS.get(module, frozenset({module}))


def _module_flags(task: Task, step: Step, facts: CodeFacts, vis: bool) -> list[LintFlag]:
    if not facts.parsed:
        return []
    if not step.modules:
        return _api_flags(task, step, facts) if vis else []
    said = " and ".join(step.modules)
    unused = [
        m
        for m in step.modules
        if m not in ALWAYS_USED
        and not (m in DATA_MODULES and facts.touches_data)
        and not (_imports(m) & facts.uses)
    ]
    messages = [f'"Please use {said}" names {m}, which the reference code does not use' for m in unused]
    if vis:
        messages += _drawing_mismatches(set(step.modules), said, facts.drawers)
    flags = [_flag(task, step, "module", f"module: {m}") for m in messages]
    return flags + (_api_flags(task, step, facts) if vis and not flags else [])


def _api_flags(task: Task, step: Step, facts: CodeFacts) -> list[LintFlag]:
    """ "Draw it with pandas" (in the instruction itself) and a reference that draws with ax.bar."""
    said = drawing_apis(step.instruction)
    drawn = set(facts.drawers) & set(PLOT_LIBRARIES)
    if not said or not drawn:
        return []
    messages = [
        f"the instruction says to draw with {lib} but the reference draws with "
        + ", ".join(f"{d} ({facts.drawers[d]})" for d in sorted(drawn))
        for lib in sorted(said & {"pandas", "seaborn"} - drawn)
    ]
    messages += [
        f"the reference draws with {lib} ({facts.drawers[lib]}) but the instruction names only "
        + " and ".join(sorted(said))
        for lib in sorted(drawn & {"pandas", "seaborn"} - said)
    ]
    return [_flag(task, step, "module", f"module: {m}") for m in messages]


def _drawing_mismatches(named: set[str], said: str, drawers: dict[str, str]) -> list[str]:
    """pandas and seaborn draw on matplotlib: the one that draws must be the one named."""
    messages = []
    for library in ("pandas", "seaborn"):
        if library in drawers and library not in named:
            messages.append(
                f"the reference draws with {library} ({drawers[library]}) "
                f'but the instruction says "Please use {said}"'
            )
        other_drawers = named & (set(drawers) - {"matplotlib"})
        other_plotters = named & ({"matplotlib", "seaborn", "pandas"} - {library})
        if library in named and library not in drawers and "matplotlib" in drawers:
            if not other_drawers and not other_plotters:
                messages.append(
                    f'"Please use {said}" but the reference draws with matplotlib ({drawers["matplotlib"]}), '
                    f"not {library}"
                )
    return messages


# --------------------------------------------------------------------------- declarations


def _declared_flags(task: Task, facts: list[CodeFacts], vis: list[bool]) -> list[LintFlag]:
    table = (task.metadata.get("cibench_lab") or {}).get("plot_elements")
    flags = []
    for key, elements in (table or {}).items() if isinstance(table, dict) else ():
        index = int(key) if str(key).isdigit() else -1
        if not 0 <= index < len(task.steps):
            message = f"plot_elements declares step {key!r} (0-based), which does not exist"
            flags.append(_flag(task, None, "declared", message))
            continue
        step, messages = task.steps[index], []
        if not vis[index]:
            messages.append("plot_elements declares elements for a step that is not a vis step")
        listed = elements if isinstance(elements, list) else []
        known = [e for e in listed if e in ELEMENTS or e in LEGACY]
        messages += [
            f"declared element {e!r} is not one of {', '.join(ELEMENTS)}" for e in listed if e not in known
        ]
        messages += [
            f"declared element {e} is not named by the instruction"
            for e in current(known)
            if not _names_declared(e, step, facts[index])
        ]
        flags += [_flag(task, step, "declared", m, code=False) for m in messages]
    return flags


def _names_declared(element: str, step: Step, facts: CodeFacts) -> bool:
    if element != "chart_type":
        return names_element(element, step.instruction)
    return all(names_family(f, step.instruction, e) for f, e in facts.families.items())


# --------------------------------------------------------------------------- choices


def _choice_flags(task: Task, step: Step, choices: ChoiceFacts, vis: bool) -> list[LintFlag]:
    """Choices that change the graded answer, left open by the instruction (tasks/choices.py)."""
    messages = split_messages(step.instruction, choices)
    if vis:
        messages += range_messages(step.instruction, choices)
        messages += plot_api_messages(step.instruction, step.modules, choices)
    return [_flag(task, step, m.split(":")[0], m) for m in messages]


# --------------------------------------------------------------------------- the lint


def _placeholder_flags(task: Task) -> list[LintFlag]:
    flags = []
    for what, text in (("title", task.title), ("intro", task.intro)):
        for found, looks in placeholders(text):
            flags.append(
                _flag(task, None, "placeholder", f"placeholder: the task's {what} keeps {looks} ({found})")
            )
    for step in task.steps:
        for found, looks in placeholders(step.instruction):
            flags.append(
                _flag(
                    task, step, "placeholder", f"placeholder: the instruction keeps {looks} ({found})", False
                )
            )
    return flags


def is_vis(task: Task, step: Step, facts: CodeFacts) -> bool:
    if step.kind == "vis" or step.reference.kind == "vis":
        return True
    unbuilt = "step_types" not in task.metadata and not any(s.outputs for s in task.steps)
    return unbuilt and bool(facts.families)


def lint_task(task: Task) -> list[LintFlag]:
    """Every flag of one loaded task, in cell order (none for Qwen's benchmark: no reference code)."""
    if is_qwen(task):
        return []
    facts = read_notebook([s.code for s in task.steps])
    choices = read_choices([s.code for s in task.steps])
    vis = [is_vis(task, s, f) for s, f in zip(task.steps, facts, strict=True)]
    flags = _placeholder_flags(task)
    for step, fact, choice, v in zip(task.steps, facts, choices, vis, strict=True):
        flags += _style_flags(task, step, fact)
        if v:
            flags += _element_flags(task, step, fact)
        flags += _module_flags(task, step, fact, v)
        flags += _choice_flags(task, step, choice, v)
    flags += _declared_flags(task, facts, vis)
    return sorted(flags, key=lambda f: -1 if f.cell is None else f.cell)


def lint_text(text: str, path: Path, task_id: str) -> list[LintFlag]:
    """Lint a notebook's text (before it is written); TaskError if it does not load."""
    from .format import parse_notebook

    return lint_task(parse_notebook(text.encode("utf-8"), path, task_id, None))


def refusal(flags: list[LintFlag]) -> str:
    """The one message a build that refuses flagged notebooks prints."""
    return "the lint flags what the instruction does not say:\n  " + "\n  ".join(f.line() for f in flags)


def flagged_steps(flags: list[LintFlag]) -> list[tuple[LintFlag, list[str]]]:
    """One entry per flagged step (its first flag, the kinds flagged), in order."""
    steps: dict[tuple[str, int | None], tuple[LintFlag, list[str]]] = {}
    for flag in flags:
        first, kinds = steps.setdefault((flag.file, flag.step), (flag, []))
        if flag.kind not in kinds:
            kinds.append(flag.kind)
    return list(steps.values())


__all__ = ["LintFlag", "flagged_steps", "is_vis", "lint_task", "lint_text", "refusal"]
