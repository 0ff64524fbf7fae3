"""Inspect AI (the optional ``inspect`` extra): our attempts as Inspect's samples and scores.

scores.py: a profile's step grades as Inspect scores, one per CIBench metric, and the pooled
(``micro``) figure `report` shows.  docs/inspect.md.  Importing this package imports ``inspect_ai``:
only the commands and the task that need it do (:func:`missing` says why it is absent).
"""

from __future__ import annotations

import importlib.util

INSTALL = "pip install 'cibench-lab[inspect]'"


def missing() -> str | None:
    """One line when ``inspect_ai`` is not installed (None: it is)."""
    if importlib.util.find_spec("inspect_ai") is None:
        return f"Inspect AI is not installed: {INSTALL}"
    return None
