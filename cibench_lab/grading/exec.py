"""`exec` steps and the tool/executable rates every step gets (CIBench's valid_step).

The last interpreter turn decides: tool 1 and executable 1 when it ran without
error.  Replies that made no interpreter call (status ``no_action``, lagent's
NoAction) are skipped, as the original skips non-interpreter actions; a step
with none at all scores tool 0, executable 0.
"""

from __future__ import annotations

from .render import Rendered


def _last_action(rendered: list[Rendered]) -> Rendered | None:
    for turn in reversed(rendered):
        if turn.tool:
            return turn
    return None


def tool_and_exec(rendered: list[Rendered]) -> tuple[float, float]:
    """Tool used (an interpreter turn) and executable (the last such turn succeeded)."""
    last = _last_action(rendered)
    if last is None:
        return 0.0, 0.0
    return 1.0, 1.0 if last.succeed else 0.0


def failure_detail(rendered: list[Rendered], error_name: str) -> str:
    """Why there is nothing to grade: no interpreter turn yet, or the code raised."""
    if not any(r.tool for r in rendered):
        return "no code run yet" if rendered else "not run yet"
    return f"raised an error ({error_name})" if error_name else "raised an error"


def exec_detail(rendered: list[Rendered], error_name: str) -> str:
    last = _last_action(rendered)
    if last is not None and last.succeed:
        return "ran without error"
    return failure_detail(rendered, error_name)
