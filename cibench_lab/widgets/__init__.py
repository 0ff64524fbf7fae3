"""Results in a notebook: ``from cibench_lab.widgets import Results; Results()`` in an ordinary
kernel of the user's own server, or ``Results(url=..., token=...)`` naming another (a proctored
study's, whose sandboxed kernels cannot run it; docs/results.md).  It reads only the server's
REST API as the notebook's user, never the results database."""

from __future__ import annotations

from .results import Results
from .where import Unavailable

__all__ = ["Results", "Unavailable"]
