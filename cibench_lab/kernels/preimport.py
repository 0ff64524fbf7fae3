"""What a pooled kernel imports while it waits: the modules its tasks will import.

A waiting kernel (:mod:`.pool`) loads, for its key's library set, each library's modules
(:data:`IMPORTS`; a library not listed: its own name), the modules some library loads only
on first use (:data:`ON_FIRST_USE`: PyTorch's optimizers import ``torch._dynamo``, seconds),
and the modules the tasks it is started for import by name in their steps' code
(:func:`task_imports`) — only those inside the packages of the task's libraries, so no
other module's import-time work (a print, a file written) moves out of the task's turns.
All of it runs silently in a namespace of its own (:func:`preimport_code`): only
``sys.modules`` changes, so a warm kernel plays a task as a fresh one does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..tasks.model import Task

#: A task library's modules, as a kernel imports them (the ones a step's code usually names).
IMPORTS: dict[str, tuple[str, ...]] = {
    "pytorch": ("torch",),
    "opencv": ("cv2",),
    "sklearn": ("sklearn", "sklearn.model_selection", "sklearn.metrics", "sklearn.preprocessing"),
    "scipy": ("scipy", "scipy.stats"),
    "matplotlib": ("matplotlib.pyplot",),
}
#: Modules a library imports on first use, not at its own import (measured with ``-X importtime``
#: over the built-in tasks' reference code: building a ``torch.optim`` optimizer imports
#: ``torch._dynamo``, 1-5 s on two cores).
ON_FIRST_USE: dict[str, tuple[str, ...]] = {"pytorch": ("torch._dynamo",)}
#: The top-level packages of a library, where it differs from the library's name.
PACKAGES: dict[str, tuple[str, ...]] = {
    "pytorch": ("torch",),
    "opencv": ("cv2",),
    "tensorflow": ("tensorflow", "keras"),
}

#: ``from a.b import c`` (module ``a.b``) or ``import a.b as c, d`` (names), each at a line's start.
_NAME = r"[\w.]+(?:[ \t]+as[ \t]+\w+)?"
IMPORT_LINE = re.compile(
    rf"^[ \t]*(?:from[ \t]+(?P<module>[A-Za-z_][\w.]*)[ \t]+import\b"
    rf"|import[ \t]+(?P<names>{_NAME}(?:[ \t]*,[ \t]*{_NAME})*))",
    re.MULTILINE,
)


def packages(libraries: Iterable[str]) -> set[str]:
    """The top-level packages of ``libraries``."""
    return {p for lib in libraries for p in PACKAGES.get(lib, (lib,))}


def task_imports(task: Task) -> tuple[str, ...]:
    """The modules ``task``'s steps import by name (``import a.b``, ``from a.b import c``: ``a.b``;
    lines read as written, not parsed: quick at the server's start) inside the packages of its
    libraries."""
    allowed = packages(task.libraries or (task.lib,))
    found: set[str] = set()
    for step in task.steps:
        for line in IMPORT_LINE.finditer(step.code):
            if line["module"]:
                found.add(line["module"])
            else:
                found.update(part.split()[0] for part in line["names"].split(",") if part.strip())
    return tuple(sorted(m for m in found if m.split(".")[0] in allowed))


def modules(libraries: tuple[str, ...], extra: Iterable[str] = ()) -> list[str]:
    """What a kernel of ``libraries`` pre-imports, in order: the libraries' modules, those they
    load on first use, then ``extra`` (the tasks' own imports), each once."""
    ordered = [m for lib in libraries for m in (*IMPORTS.get(lib, (lib,)), *ON_FIRST_USE.get(lib, ()))]
    return list(dict.fromkeys([*ordered, *sorted(extra)]))


def preimport_code(libraries: tuple[str, ...], extra: Iterable[str] = ()) -> str:
    """Python that loads :func:`modules` into ``sys.modules`` and binds nothing in the user
    namespace (it runs in a dictionary of its own; a module that fails is left out)."""
    body = (
        "import importlib\n"
        f"for name in {modules(libraries, extra)!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception:\n"
        "        pass\n"
    )
    return f"exec({body!r}, {{}})"
