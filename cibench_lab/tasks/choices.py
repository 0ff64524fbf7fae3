"""Lint rules for choices that change the graded answer but that an instruction can leave open.

Found by players who solved the built-in tasks blind (docs/lint.md, "Choices that change the
answer"); each rule reads a step's reference code with :mod:`ast` (names followed across cells
by :mod:`cibench_lab.tasks.bindings`) and its instruction with a few English and Chinese words:

- ``split``: the reference splits by a fraction (``random_split(ds, [0.8, 0.2])``,
  ``train_test_split(..., test_size=0.2)``) and the instruction gives neither that argument as
  written, nor the sizes, nor how they round: ``int(0.8 * n)`` and ``random_split([0.8, 0.2])``
  give 360 and 359 test rows of 1,797, and every later step differs;
- ``range``: a vis step's reference fixes the colour range of what it shows (``vmin=``/``vmax=``,
  ``clim=``, ``set_clim``) and the instruction names no range, or not its literal bounds;
- ``plot_api``: a vis step draws a line from pandas data — with pandas' ``.plot`` or with
  matplotlib's ``ax.plot``/``plt.plot`` — and neither the instruction nor a ``modules`` entry
  naming only that library says which: on dates, pandas' ``.plot`` formats its own date axis and
  labels the x axis with the index name, ``ax.plot`` does neither.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .bindings import Bindings, dotted, root_of
from .wording import drawing_apis

SPLIT_CALLS = frozenset({"random_split", "train_test_split"})
SPLIT_SIZE_KWARGS = ("test_size", "train_size")
RANGE_KWARGS = frozenset({"vmin", "vmax", "clim"})
RANGE_CALLS = frozenset({"set_clim", "clim"})
#: Attributes and methods of a pandas object that give something else (a NumPy array, a list).
NOT_PANDAS = frozenset({"values", "to_numpy", "tolist", "to_list", "to_dict", "item", "array"})

#: The instruction says how a fraction becomes a count ("rounded down", "floor", ``int(0.8 * n)``).
_ROUNDING = re.compile(
    r"\bround(?:s|ed|ing)?\b[^.;]{0,30}?\b(?:down|up)\b|\bfloor|\bceil|\bint\(|\btruncat|"
    r"向下取整|向上取整|取整|舍去小数"
)
#: The instruction gives a size: "359 test images", "a test set of 359", "测试集 359 张", "359 个测试".
_COUNT = re.compile(
    r"\b\d[\d,]*\s+(?:\w+\s+)?(?:training|train|test|testing|validation|held[- ]out)\b|"
    r"\b(?:training|train|test|testing|validation)\s+(?:set|part|split|data|rows|samples|images)?\s*"
    r"(?:of|has|holds|with|gets|:|=)\s*\d+(?![\d.]*\s*%)|"
    r"(?:训练|测试|验证)集?\s*(?:有|为|包含|是|共)?\s*\d+(?![\d.]*\s*%)|"
    r"\d+\s*(?:个|张|行|条)?\s*(?:训练|测试|验证)"
)
#: The instruction names a colour range ("fixed range 0-255", "vmin", "范围").
_RANGE_WORDS = re.compile(r"\brange\b|\bvmin\b|\bvmax\b|\bclim\b|\blimits?\b|\bscaled? from\b|范围|区间")
#: The instruction names the drawing function itself.
_PLOT_FUNCTION = re.compile(r"\.plot\b")


@dataclass
class ChoiceFacts:
    """What one step's reference code decides that its instruction must state."""

    splits: list[tuple[str, str]] = field(default_factory=list)  # (call, its fraction argument as written)
    ranges: list[str] = field(default_factory=list)  # calls that fix a colour range
    range_values: list[str] = field(default_factory=list)  # their literal bounds ("0", "255")
    lines: dict[str, str] = field(default_factory=dict)  # "pandas" / "matplotlib" -> a line from pandas data


def _fraction(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, float) and 0 < node.value < 1


def _number(node: ast.AST) -> str | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else f"-{inner}"
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return f"{node.value:g}"
    return None


class _Reader:
    def __init__(self, bindings: Bindings, frames: Frames, facts: ChoiceFacts):
        self.bindings, self.frames, self.facts = bindings, frames, facts

    def call(self, call: ast.Call) -> None:
        name = dotted(call.func)
        method = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if method in SPLIT_CALLS:
            self._split(call, name)
        self._range(call, name, method)
        if isinstance(call.func, ast.Attribute):
            self._line(call, call.func, name)

    def _split(self, call: ast.Call, name: str) -> None:
        kwargs = {k.arg: k.value for k in call.keywords if k.arg}
        if name.endswith("random_split"):
            lengths = kwargs.get("lengths") or (call.args[1] if len(call.args) > 1 else None)
            if isinstance(lengths, ast.List | ast.Tuple) and any(_fraction(e) for e in lengths.elts):
                self.facts.splits.append((name, ast.unparse(lengths)))
            return
        for key in SPLIT_SIZE_KWARGS:
            if _fraction(kwargs.get(key)):
                self.facts.splits.append((name, f"{key}={ast.unparse(kwargs[key])}"))

    def _range(self, call: ast.Call, name: str, method: str) -> None:
        bounds = [k for k in call.keywords if k.arg in RANGE_KWARGS]
        if method in RANGE_CALLS and "matplotlib" in self._modules(call.func):
            self.facts.ranges.append(name)
            values = list(call.args)
        elif bounds:
            self.facts.ranges.append(f"{name}({', '.join(f'{k.arg}=' for k in bounds)})")
            values = [k.value for k in bounds]
        else:
            return
        for node in values:
            for sub in node.elts if isinstance(node, ast.List | ast.Tuple) else [node]:
                if (number := _number(sub)) is not None:
                    self.facts.range_values.append(number)

    def _modules(self, func: ast.AST) -> set[str]:
        return self.bindings.modules_of(root_of(func.value)) if isinstance(func, ast.Attribute) else set()

    def _line(self, call: ast.Call, func: ast.Attribute, name: str) -> None:
        owner, frames = func.value, self.frames
        if func.attr == "line" and isinstance(owner, ast.Attribute) and owner.attr == "plot":
            if frames.holds(owner.value):  # df.plot.line()
                self.facts.lines.setdefault("pandas", name)
            return
        if func.attr != "plot":
            return
        if "matplotlib" in self._modules(func):
            if any(frames.holds(arg) for arg in call.args):
                self.facts.lines.setdefault("matplotlib", name)
        elif frames.holds(owner):
            kind = next((k.value for k in call.keywords if k.arg == "kind"), None)
            if kind is None or (isinstance(kind, ast.Constant) and kind.value == "line"):
                self.facts.lines.setdefault("pandas", name)


class Frames:
    """Names that hold a pandas object (a DataFrame, Series or Index), followed across cells:
    assigned from ``pd.<function>(...)``, or from a subscript, attribute, method call or
    arithmetic of such a name -- not from ``np.linspace(df[...].min(), ...)`` nor ``.to_numpy()``
    (what :class:`~cibench_lab.tasks.bindings.Bindings` would still call pandas)."""

    def __init__(self, bindings: Bindings):
        self.bindings = bindings
        self.names: set[str] = set()

    def holds(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return node.attr not in NOT_PANDAS and self.holds(node.value)
        if isinstance(node, ast.Subscript):
            return self.holds(node.value)
        if isinstance(node, ast.BinOp):
            return self.holds(node.left) or self.holds(node.right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            module = node.func.value
            if isinstance(module, ast.Name) and self.bindings.imported.get(module.id) == "pandas":
                return True
            return node.func.attr not in NOT_PANDAS and self.holds(module)
        return False

    def learn(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        (self.names.add if self.holds(node.value) else self.names.discard)(target.id)


def read_choices(sources: list[str]) -> list[ChoiceFacts]:
    """The facts of each code cell, in order, names followed from one cell to the next (a cell
    that does not parse has none)."""
    bindings, found = Bindings(), []
    frames = Frames(bindings)
    for source in sources:
        facts = ChoiceFacts()
        try:
            tree = ast.parse("\n".join("" if s.lstrip()[:1] in "%!" else s for s in source.splitlines()))
        except (SyntaxError, ValueError, RecursionError):
            found.append(facts)
            continue
        bindings.learn(tree)
        frames.learn(tree)
        reader = _Reader(bindings, frames, facts)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                reader.call(node)
        found.append(facts)
    return found


# --------------------------------------------------------------------------- the rules


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def split_messages(instruction: str, facts: ChoiceFacts) -> list[str]:
    """A fraction split whose sizes the instruction leaves to the player's rounding."""
    lower = instruction.lower()
    if _ROUNDING.search(lower) or _COUNT.search(lower):
        return []
    return [
        f"split: {call} splits by a fraction ({arg}) but the instruction gives neither that argument "
        "as written, nor the sizes, nor how they round (int(0.8 * n) and random_split's fractions "
        "differ by one row)"
        for call, arg in facts.splits
        if not re.search(re.escape(_squeeze(arg).lower()) + r"(?![\d])", _squeeze(lower))
    ]


def _gives_number(value: str, text: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(value)}(?![\d]|\.\d)", text) is not None


def range_messages(instruction: str, facts: ChoiceFacts) -> list[str]:
    """A vis step's fixed colour range that the instruction does not state."""
    if not facts.ranges:
        return []
    evidence = ", ".join(dict.fromkeys(facts.ranges))
    if not _RANGE_WORDS.search(instruction.lower()):
        return [
            f"range: the reference fixes the colour range ({evidence}) but the instruction names no range"
        ]
    missing = [v for v in dict.fromkeys(facts.range_values) if not _gives_number(v, instruction)]
    if missing:
        bounds = ", ".join(missing)
        return [f"range: the colour range's bounds {bounds} ({evidence}) are not given by the instruction"]
    return []


def plot_api_messages(instruction: str, modules: tuple[str, ...], facts: ChoiceFacts) -> list[str]:
    """A line drawn from pandas data whose drawing function (pandas' ``.plot`` or matplotlib's
    ``plot``) the step does not name."""
    if not facts.lines or drawing_apis(instruction) or _PLOT_FUNCTION.search(instruction.lower()):
        return []
    named = set(modules) & {"pandas", "matplotlib", "seaborn"}
    if len(named) == 1 and named <= set(facts.lines):  # "Please use matplotlib modules."
        return []
    return [
        f"plot_api: a line drawn from pandas data with {call} ({library}) but the step does not say "
        "whether pandas' .plot or matplotlib's ax.plot draws it "
        "(they differ in the date axis and the x label)"
        for library, call in facts.lines.items()
    ]


__all__ = ["ChoiceFacts", "plot_api_messages", "range_messages", "read_choices", "split_messages"]
