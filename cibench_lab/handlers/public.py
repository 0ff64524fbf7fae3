"""What of the engine's turn and settle answers the browser may see: grades hidden while live grades are off
and the attempt is open (``views/attempt.py: grades_visible``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..play.attempt import Attempts
from ..views.attempt import attempt_view, grades_visible


def grades_shown(view: dict) -> bool:
    return grades_visible(view["status"], view["settings"]["show_grades"])


def public_settle(settled: Mapping[str, Any] | None, show_grade: bool) -> dict | None:
    if settled is None:
        return None
    out = {k: settled[k] for k in ("step", "outcome", "next_step", "oracle_code")}
    out["grade"] = settled["grade"] if show_grade else None
    return out


def public_turn(attempts: Attempts, attempt_id: str, result: dict) -> dict:
    """A turn result as the browser may see it: grades hidden when live grades are off."""
    view = attempt_view(attempts, attempt_id, None)
    show = grades_shown(view)
    out = {
        "step": result["step"],
        "turn": result["turn"],
        "grade": result["grade"] if show else None,
        "settled": public_settle(result["settled"], show),
        "next": result["next"],
        "attempt": view,
    }
    if result.get("stopped"):
        out["stopped"] = result["stopped"]
    return out
