"""What a step's reference code does to a figure, read from its source with :mod:`ast` (never run).

:func:`read_notebook` walks a task's code cells in order and returns, per step, a
:class:`CodeFacts`: the plot elements the code sets explicitly (with the call that sets
each one), the chart families it draws, which library draws them (``matplotlib``,
``pandas``, ``seaborn``, or a library's own plotting helper), the style or theme calls it
makes, and the top-level modules it uses.

Names are followed across cells: ``import matplotlib.pyplot as plt`` in step 1 makes
``plt.`` in step 5 a use of matplotlib, and a name assigned from an expression that uses
a module carries that module (``df = pd.read_csv(...)`` -> ``df`` is pandas;
``fig, ax = plt.subplots()`` -> ``ax`` is matplotlib).  That is how ``df.plot(...)`` is
told from ``ax.plot(...)``: a ``.plot`` / ``.hist`` / ``.boxplot`` call on something that
carries matplotlib is matplotlib's, on anything else pandas'.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .bindings import Bindings, dotted, root_of
from .plotvocab import (
    AXIS_LABEL_CALLS,
    COLOR_CALLS,
    COLOR_KWARGS,
    COLORBAR_CALLS,
    COLORBAR_KWARGS,
    DISPLAYS,
    FIGSIZE_CALLS,
    FIGURE_LEVEL_SNS,
    FMT_COLOURS,
    HELPERS,
    LEGEND_CALLS,
    LIMIT_CALLS,
    MPL_FAMILIES,
    PANDAS_KINDS,
    SCALE_CALLS,
    SNS_FAMILIES,
    SNS_STYLE_CALLS,
    TICK_CALLS,
    TITLE_CALLS,
    X_LABEL_CALLS,
    Y_LABEL_CALLS,
)

#: seaborn grids' methods that draw with the function they are given.
GRID_MAPS = frozenset({"map", "map_dataframe", "map_diag", "map_offdiag", "map_lower", "map_upper"})
#: pyplot functions whose names are common methods elsewhere (``df['name'].str.title()``).
#: matplotlib drawing methods that other libraries' objects have too: drawing only on a matplotlib name.
NOT_ONLY_PLOTS = frozenset({"step"})
PYPLOT_ONLY = frozenset({"title", "xlabel", "ylabel", "xticks", "yticks", "xscale", "yscale", "xlim", "ylim"})
_FMT = re.compile(r"^(?:[-.:o^v<>sp*+xXDdh|_1234,]*)?(?:[bgrcmykw]|C\d)(?:[-.:o^v<>sp*+xXDdh|_1234,]*)$")


@dataclass
class CodeFacts:
    """What one step's reference code does (empty when it does not parse)."""

    #: element -> evidence ("ax.set_title"); "ticks:scale" / "ticks:limits" are ticks, named in other words
    elements: dict[str, list[str]] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)  # title / x_label / ... -> literal texts
    families: dict[str, str] = field(default_factory=dict)  # chart family -> evidence
    drawers: dict[str, str] = field(default_factory=dict)  # drawing library -> evidence
    styles: list[str] = field(default_factory=list)  # style / theme calls
    hue: list[str] = field(default_factory=list)  # literal hue= column names
    uses: set[str] = field(default_factory=set)  # top-level modules the code uses
    bound: frozenset[str] = frozenset()  # every name bound so far, this cell included
    touches_data: bool = False  # refers to a name bound by an earlier statement (a data object)
    parsed: bool = True

    def add(self, element: str, evidence: str) -> None:
        self.elements.setdefault(element, [])
        if evidence not in self.elements[element]:
            self.elements[element].append(evidence)


def _clean(source: str) -> str:
    """Cell magics and shell escapes (``%matplotlib inline``, ``!pip``) are not Python."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(_clean(source))
    except (SyntaxError, ValueError, RecursionError):
        return None


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _literal_nodes(node: ast.AST) -> list[ast.AST]:
    """``node`` and its sub-nodes, f-strings left out whole."""
    if isinstance(node, ast.JoinedStr):
        return []
    return [node] + [n for child in ast.iter_child_nodes(node) for n in _literal_nodes(child)]


def _kwarg(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


class _Reader:
    """One step's calls -> its :class:`CodeFacts`, given the bindings so far."""

    def __init__(self, bindings: Bindings, facts: CodeFacts):
        self.bindings, self.facts = bindings, facts

    def receiver_modules(self, func: ast.AST) -> set[str]:
        if not isinstance(func, ast.Attribute):
            return set()
        return self.bindings.modules_of(root_of(func.value))

    def call(self, call: ast.Call) -> None:
        name = dotted(call.func)
        method = call.func.attr if isinstance(call.func, ast.Attribute) else name
        if method in GRID_MAPS and call.args and isinstance(call.args[0], ast.Attribute):
            # g.map(plt.hist, 'x'), g.map_dataframe(sns.histplot, x='x'): the grid draws with that function
            drawn = call.args[0]
            self._draw(ast.Call(func=drawn, args=[], keywords=[]), dotted(drawn), drawn.attr)
        self._draw(call, name, method)
        self._elements(call, name, method)
        self._style(call, name, method)
        self._keywords(call, name, method)

    # ------------------------------------------------------------------ what draws
    def _draw(self, call: ast.Call, name: str, method: str) -> None:
        mods = self.receiver_modules(call.func) if isinstance(call.func, ast.Attribute) else set()
        if isinstance(call.func, ast.Name):
            mods = self.bindings.names.get(call.func.id, set())
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        if owner is not None and method in ("from_predictions", "from_estimator", "plot"):
            display = dotted(owner).split(".")[-1]
            if display in DISPLAYS:
                self._drawn("sklearn", DISPLAYS[display], name)
                return
        helper = HELPERS.get(method)
        if helper is not None and (not helper[0] or helper[0] in mods):
            self._drawn(helper[0] or next(iter(sorted(mods)), "?"), helper[1], name)
            return
        if "seaborn" in mods and method in SNS_FAMILIES:
            family = SNS_FAMILIES[method]
            kind = _literal(_kwarg(call, "kind"))
            self._drawn("seaborn", _sns_kind(method, kind) or family, name)
            return
        if isinstance(owner, ast.Attribute) and owner.attr == "plot" and method in PANDAS_KINDS:
            if "matplotlib" not in self.receiver_modules(owner):
                self._drawn("pandas", PANDAS_KINDS[method], name)
                return
        pandas_like = owner is not None and not (
            isinstance(owner, ast.Name) and owner.id in self.bindings.imported
        )
        if method in ("plot", "hist", "boxplot") and "matplotlib" not in mods and pandas_like:
            kind = (
                _literal(_kwarg(call, "kind")) or {"plot": "line", "hist": "hist", "boxplot": "box"}[method]
            )
            self._drawn("pandas", PANDAS_KINDS.get(kind, kind), name)
            return
        if method in MPL_FAMILIES and isinstance(call.func, ast.Attribute) and _draws(method, mods):
            self._drawn("matplotlib", MPL_FAMILIES[method], name)
            if method == "plot" and len(call.args) > 1:
                fmt = _literal(call.args[-1])
                if fmt and _FMT.match(fmt):
                    self.facts.add("colors", f"{name}(..., {fmt!r})")
                    letter = re.search(r"C\d|[bgrcmykw]", fmt)
                    if letter and letter.group(0) in FMT_COLOURS:
                        self.facts.texts.setdefault("colors", []).append(FMT_COLOURS[letter.group(0)])

    def _drawn(self, library: str, family: str, evidence: str) -> None:
        self.facts.drawers.setdefault(library, evidence)
        self.facts.families.setdefault(family, evidence)
        self.facts.add("chart_type", evidence)

    # ------------------------------------------------------------------ element calls
    def _elements(self, call: ast.Call, name: str, method: str) -> None:
        table = (
            ("title", TITLE_CALLS),
            ("x_label", X_LABEL_CALLS),
            ("y_label", Y_LABEL_CALLS),
            ("legend", LEGEND_CALLS),
            ("colorbar", COLORBAR_CALLS),
            ("ticks", TICK_CALLS),
            ("figsize", FIGSIZE_CALLS),
            ("colors", COLOR_CALLS),
            ("ticks:scale", SCALE_CALLS),
            ("ticks:limits", LIMIT_CALLS),
        )
        for element, methods in table:
            if method in methods and (method not in PYPLOT_ONLY or self._pyplot(call)):
                self.facts.add(element, name)
                if element in ("title", "x_label", "y_label") and call.args:
                    self._text(element, call.args[0])
                if element == "legend" and call.args:
                    self._texts("legend", call.args[0])
        if method == "set_axis_labels":  # seaborn's grids: (x label, y label)
            for element, arg in zip(("x_label", "y_label"), call.args, strict=False):
                self.facts.add(element, name)
                self._text(element, arg)
        if method in ("axis", "set_axis_off") and (
            method == "set_axis_off" or any(_literal(a) == "off" or _is_false(a) for a in call.args)
        ):
            self.facts.add("ticks", f"{name}('off')")
        if method == "set_visible" and "axis" in name and call.args and _is_false(call.args[0]):
            self.facts.add("ticks", name)
        if method == "setp" and any("ticklabels" in dotted(a) for a in call.args):
            self.facts.add("ticks", f"{name}(...ticklabels...)")

    def _pyplot(self, call: ast.Call) -> bool:
        """``plt.title`` sets a title; ``df['name'].str.title()`` does not."""
        func = call.func
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and ("matplotlib" in self.bindings.names.get(func.value.id, set()))
        )

    def _style(self, call: ast.Call, name: str, method: str) -> None:
        mods = self.receiver_modules(call.func)
        func = call.func
        seaborn = (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and self.bindings.imported.get(func.value.id) == "seaborn"  # sns.set(), not g.set(xlabel=)
            and method in SNS_STYLE_CALLS
        )
        pyplot = "matplotlib" in mods and (
            ".style." in f".{name}" and method in ("use", "context") or method in ("rc", "xkcd")
        )
        if seaborn or pyplot or (method == "update" and name.endswith("rcParams.update")):
            self.facts.styles.append(name)
            if method in ("set_palette", "set_color_codes"):
                self.facts.add("colors", name)

    def _colour_values(self, node: ast.AST) -> None:
        """The literal colours and colormaps a colour argument names ('tab:green', ['red'])."""
        for sub in _literal_nodes(node):
            text = _literal(sub)
            if text and not re.fullmatch(r"C\d|none|None|", text):
                self.facts.texts.setdefault("colors", []).append(FMT_COLOURS.get(text, text))

    def _texts(self, element: str, node: ast.AST) -> None:
        """Every literal string of ``node`` (``'a'``, ``['a', 'b']``): texts the figure shows
        (not the pieces of an f-string: its text is made at run time)."""
        for sub in _literal_nodes(node):
            self._text(element, sub)

    def _text(self, element: str, node: ast.AST) -> None:
        text = _literal(node)
        if text is not None and text.strip():
            self.facts.texts.setdefault(element, []).append(text)

    # ------------------------------------------------------------------ keyword arguments
    def _keywords(self, call: ast.Call, name: str, method: str) -> None:
        for kw in call.keywords:
            arg = kw.arg
            if arg is None:
                continue
            where = f"{name}({arg}=)"
            if arg == "title" and method not in LEGEND_CALLS:
                self.facts.add("title", where)
                self._text("title", kw.value)
            elif arg in ("label", "labels", "title") and method not in AXIS_LABEL_CALLS | TITLE_CALLS:
                # a legend entry (shown when there is a legend), a legend title, a colour bar label
                self._texts("colorbar" if method in COLORBAR_CALLS else "legend", kw.value)
            elif arg in ("xlabel", "ylabel"):
                self.facts.add(f"{arg[0]}_label", where)
                self._text(f"{arg[0]}_label", kw.value)
            elif arg == "legend":
                self.facts.add("legend", where)
            elif arg == "hue":
                self.facts.add("colors", where)
                if (column := _literal(kw.value)) is not None:
                    self.facts.hue.append(column)
            elif arg in COLOR_KWARGS and not (arg == "cmap" and _literal(kw.value) == "viridis"):
                self.facts.add("colors", where)  # cmap='viridis' is matplotlib's default: no change
                self._colour_values(kw.value)
            elif arg in COLORBAR_KWARGS:
                self.facts.add("colorbar", where)
            elif arg in ("rot", "xticks", "yticks", "xticklabels", "yticklabels", "labelrotation"):
                self.facts.add("ticks", where)
            elif arg in ("logx", "logy", "loglog", "log_scale") or (
                arg == "log" and method in ("hist", "histplot")
            ):
                self.facts.add("ticks:scale", where)
            elif arg in ("xlim", "ylim"):
                self.facts.add("ticks:limits", where)
            elif arg == "rotation" and (method in TICK_CALLS or "tick" in name):
                self.facts.add("ticks", where)
            elif arg == "figsize" or (arg == "dpi" and method in ("figure", "subplots", "subplot_mosaic")):
                self.facts.add("figsize", where)
            elif arg in ("height", "aspect") and method in FIGURE_LEVEL_SNS:
                self.facts.add("figsize", where)


def _draws(method: str, modules: set[str]) -> bool:
    """A matplotlib drawing method's name on this receiver draws (``optimizer.step()`` does not)."""
    return method not in NOT_ONLY_PLOTS or "matplotlib" in modules


def _is_false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _sns_kind(method: str, kind: str | None) -> str | None:
    if kind is None:
        return None
    return SNS_FAMILIES.get(f"{kind}plot", kind) if method in FIGURE_LEVEL_SNS else None


def _rc_figsize(tree: ast.Module, facts: CodeFacts) -> None:
    """``rcParams['figure.figsize'] = ...`` sets the figure size; other rcParams are style."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and dotted(node.value).endswith("rcParams"):
            key = _literal(node.slice) or ""
            if isinstance(node.ctx, ast.Store):
                if key in ("figure.figsize", "figure.dpi"):
                    facts.add("figsize", f"rcParams[{key!r}]")
                else:
                    facts.styles.append(f"rcParams[{key!r}]")


def read_step(source: str, bindings: Bindings) -> CodeFacts:
    """The facts of one code cell; ``bindings`` learns the names it defines."""
    tree = _parse(source)
    if tree is None:
        return CodeFacts(parsed=False)
    facts = CodeFacts()
    imported = bindings.learn(tree)
    reader = _Reader(bindings, facts)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            reader.call(node)
    _rc_figsize(tree, facts)
    facts.bound = frozenset(bindings.names)
    facts.touches_data = any(isinstance(n, ast.Name) and n.id in bindings.names for n in ast.walk(tree))
    facts.uses = imported | {
        m for node in ast.walk(tree) if isinstance(node, ast.Name) for m in bindings.names.get(node.id, ())
    }
    return facts


def read_notebook(sources: list[str]) -> list[CodeFacts]:
    """The facts of each code cell, in order, names followed from one cell to the next."""
    bindings = Bindings()
    return [read_step(source, bindings) for source in sources]
