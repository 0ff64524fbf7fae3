"""The runs of the results database, picked by name or id."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import NotFound
from .tables import Run


class UnknownRun(NotFound, LookupError):
    """404 (the CLI: exit 2): a run name or id the results database does not hold."""


def find_runs(s: Session, selectors: list[str] | None) -> list[Run]:
    """The runs named (by name or id), in the order named; every run when ``selectors`` is empty."""
    runs = list(s.scalars(select(Run).order_by(Run.id)))
    if not selectors:
        return runs
    chosen: list[Run] = []
    for sel in selectors:
        hit = [r for r in runs if r.name == sel or str(r.id) == sel]
        if not hit:
            raise UnknownRun(f"no run named {sel!r} (known: {', '.join(r.name for r in runs) or 'none'})")
        chosen.extend(h for h in hit if h not in chosen)
    return chosen
