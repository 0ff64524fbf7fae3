"""Names in a notebook's code and the modules they stand for, followed from cell to cell.

``import matplotlib.pyplot as plt`` binds ``plt`` to matplotlib; a name assigned from an
expression that uses a module carries that module (``df = pd.read_csv(...)`` -> pandas,
``fig, ax = plt.subplots()`` -> matplotlib).  Read with :mod:`ast`, never run.
"""

from __future__ import annotations

import ast


class Bindings:
    """Name -> the top-level modules it is bound to or derived from, across cells."""

    def __init__(self) -> None:
        self.names: dict[str, set[str]] = {}
        self.imported: dict[str, str] = {}  # a name an import binds -> its module's dotted name

    def modules_of(self, node: ast.AST) -> set[str]:
        found: set[str] = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                found |= self.names.get(sub.id, set())
        return found

    def bind(self, target: ast.AST, modules: set[str]) -> None:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name) and modules:
                self.names.setdefault(sub.id, set()).update(modules)

    def learn(self, tree: ast.Module) -> set[str]:
        """Bind the names ``tree`` defines; return the modules it imports."""
        imported: set[str] = set()
        for _ in range(2):  # twice: a name used before the statement that taints it, in walk order
            for node in ast.walk(tree):
                imported |= self._learn_node(node)
        return imported

    def _learn_node(self, node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                self.names.setdefault(alias.asname or top, set()).add(top)
                self.imported[alias.asname or top] = alias.name if alias.asname else top
            return {a.name.split(".")[0] for a in node.names}
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top = node.module.split(".")[0]
            for alias in node.names:
                self.names.setdefault(alias.asname or alias.name, set()).add(top)
                self.imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            return {top}
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self.bind(target, self.modules_of(node.value))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            self.bind(node.target, self.modules_of(node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self.bind(node.optional_vars, self.modules_of(node.context_expr))
        elif isinstance(node, ast.NamedExpr):
            self.bind(node.target, self.modules_of(node.value))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = ast.Module(body=list(node.body), type_ignores=[])
            self.names.setdefault(node.name, set()).update(self.modules_of(body))
        return set()


def dotted(node: ast.AST) -> str:
    """``ax.figure.set_size_inches`` for a call's function; ``?`` for what is not a name chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{dotted(node.func)}()"
    if isinstance(node, ast.Subscript):
        return f"{dotted(node.value)}[]"
    return "?"


def root_of(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node
