"""`num` and `general` steps under the ``cibench`` profile: CIBench's correct_step.

The latest successful turn whose rendering has an ``execute_result`` block (else
a ``stdout`` block) is compared with the reference: equal, or containing it,
after stripping (so "5" matches "15" — the official rule).  Earlier successful
turns are searched when later ones have no such block, as the official loop does.
"""

from __future__ import annotations

import re

from .render import Rendered

_EXEC = re.compile("execute_result:\n\n```\n(.*?)\n```", re.DOTALL)
_STDOUT = re.compile("stdout:\n\n```\n(.*?)\n```", re.DOTALL)


def answer_block(rendered: list[Rendered]) -> str | None:
    """The text the official rule compares, or None when no turn printed one."""
    for turn in reversed(rendered):
        if not turn.succeed:
            continue
        match = _EXEC.search(turn.text) or _STDOUT.search(turn.text)
        if match:
            return match.group(1)
    return None


def compare(out: str, target: str) -> float:
    ok = out.strip() == target.strip() or target.strip() in out.strip()
    return 1.0 if ok else 0.0
