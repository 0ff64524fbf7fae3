"""`exec` steps and the tool/executable rates every step gets (CIBench's valid_step)."""

from __future__ import annotations

from .render import Rendered


def tool_and_exec(rendered: list[Rendered]) -> tuple[float, float]:
    """Tool used (any code turn) and executable (the last code turn succeeded)."""
    if not rendered:
        return 0.0, 0.0
    return 1.0, 1.0 if rendered[-1].succeed else 0.0


def exec_detail(rendered: list[Rendered], error_name: str) -> str:
    if not rendered:
        return "not run yet"
    if rendered[-1].succeed:
        return "ran without error"
    return f"raised an error ({error_name})" if error_name else "raised an error"
