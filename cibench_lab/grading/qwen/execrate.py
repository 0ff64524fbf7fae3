"""The executable rate: which code the original re-runs for an item, and how it counts.

For each item of the file's task (its ``tags``, split at commas, hold the task), the family's
rule is that of the item's last tag other than ``all_ci``: ``visualization`` and ``general`` run
the FIRST action input's code, ``math`` ALL of them concatenated; ``visualization`` and ``math``
have 10 seconds, ``general`` no limit.  An item without any action input is "missing code": not
run, counted in the denominator.  The code (``prepare``) is: the query's own action inputs
first when the query holds a prior turn (``<|im_start|>``, easy items), every upload basename
rewritten to its listed path when that path is not in the code already, ``solution()`` called
when defined, figures closed after ``plt.show()`` (and after a seaborn plot), all after
:data:`PRE_LOAD`.  The rate of a tag is executable items over all items whose ``tags`` string
contains it (a substring, as the original's summary counts).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .react import QWEN, Markers, action_code

PRE_LOAD = """
import os
if 'upload_file' not in os.getcwd():
    os.chdir("./upload_file/")

import seaborn as sns

import matplotlib
# matplotlib.use('Agg')
import matplotlib.pyplot as plt
plt.ion()

import numpy as np
import pandas as pd
from sympy import Eq, symbols, solve
import re
import json
import math
"""

#: Seconds the original gives a family's code (None: no limit).
TIME_LIMITS: dict[str, float | None] = {"visualization": 10.0, "math": 10.0, "general": None}
FIRST_ONLY = {"visualization": True, "math": False, "general": True}
FAMILIES = ("math", "visualization", "general")


@dataclass(frozen=True)
class ExecItem:
    """One item's run: its code (empty: missing) and its time limit."""

    index: int
    tags: str
    code: str
    limit: float | None

    @property
    def missing(self) -> bool:
        return not self.code


def family_rule(tags: str) -> str:
    """The tag whose rule applies: the last one other than ``all_ci`` (the original's loop)."""
    rule = ""
    for tag in tags.split(","):
        if tag != "all_ci":
            if tag not in TIME_LIMITS:
                raise ValueError(f"unknown tag {tag!r} (known: {', '.join(FAMILIES)}, all_ci)")
            rule = tag
    return rule


def replace_upload_names(code: str, paths: list[str]) -> str:
    """Each listed path's basename rewritten to the path, when the path is not there already."""
    for path in paths:
        base = os.path.basename(path)
        if path not in code and base in code:
            code = code.replace(base, path)
    return code


def prepare(code: str, query: str, paths: list[str]) -> str:
    """The text the original passes to ``exec`` for an item's generated ``code``."""
    if "<|im_start|>" in query:
        code = action_code(query) + code
    code = replace_upload_names(code, paths)
    if "def solution()" in code:
        code += "\nsolution()\n"
    if "plt.show()" in code:
        code += "\nplt.pause(1)\nplt.close('all')\n"
    if "sns." in code and "plot" in code:
        code += "\nplt.close('all')\n"
    return PRE_LOAD + code


def exec_item(index: int, item: dict, markers: Markers = QWEN) -> ExecItem:
    """What the executable rate runs for ``item`` (a line of an output file)."""
    tags = str(item.get("tags", ""))
    rule = family_rule(tags)
    first = FIRST_ONLY.get(rule, False)
    limit = TIME_LIMITS.get(rule)
    code = action_code(str(item.get("gen", "")), markers, first_only=first)
    if not code:
        return ExecItem(index, tags, "", limit)
    paths = list(item.get("input_file_path") or [])
    return ExecItem(index, tags, prepare(code, str(item.get("query", "")), paths), limit)


def in_task(item: dict, task: str) -> bool:
    """Whether the original evaluates ``item`` for ``task`` (a whole tag, not a substring)."""
    return task in str(item.get("tags", "")).split(",")


@dataclass(frozen=True)
class Rate:
    """A tag's executable rate, as the original's summary counts it."""

    total: int
    missing: int
    executable: int
    outcomes: tuple[bool, ...] = field(default=(), compare=False)  # each counted item's, in order

    @property
    def percent(self) -> float | None:
        return self.executable / self.total * 100 if self.total else None


def rates(tags: list[str], executable: list[bool], missing: list[bool]) -> dict[str, Rate]:
    """Each family tag's rate over the items whose ``tags`` string contains it."""
    involved = {tag for one in tags for tag in one.split(",") if tag != "all_ci"}
    out: dict[str, Rate] = {}
    for key in sorted(involved):
        idx = [i for i, one in enumerate(tags) if key in one]
        flags = tuple(bool(executable[i]) for i in idx)
        out[key] = Rate(len(idx), sum(missing[i] for i in idx), sum(flags), flags)
    return out
