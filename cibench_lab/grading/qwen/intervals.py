"""95% CIs of each cell of the original's table, over the items behind it.

A cell is a share of items x100: the executable rate of a family (executable items over all its
items, missing code counted), an accuracy (right items over counted ones).  Its CI is the other
reports' percentile bootstrap (:func:`~cibench_lab.grading.leaderboard.bootstrap`: 2,000
resamples, seed 0) over those items, and the value and bounds are kept to the reports' one
decimal (:mod:`cibench_lab.grading.bounds`).  A cell without items, or an accuracy not graded, has
no value and no bounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..bounds import DIGITS, figure
from ..leaderboard import bootstrap, interval
from .score import ModelScore
from .table import EXEC_COLUMNS, correctness

SECTIONS = ("executable", "accuracy")


def share_with_ci(outcomes: Sequence[bool]) -> dict:
    """``{"n", "value", "ci_lo", "ci_hi"}``: the share x100 of true items and its bootstrap CI."""
    if not outcomes:
        return {"n": 0, "value": None, "ci_lo": None, "ci_hi": None}
    sums = np.array(outcomes, dtype=float)[:, None]
    (ci,) = interval(bootstrap(sums, np.ones_like(sums)), DIGITS)
    value = figure(100 * sum(outcomes) / len(outcomes))
    return {"n": len(outcomes), "value": value, "ci_lo": ci[0], "ci_hi": ci[1]}


def cell_cis(score: ModelScore) -> dict[str, dict[str, dict]]:
    """``{"executable": {column: cell}, "accuracy": {column: cell}}``, each cell as
    :func:`share_with_ci` gives it; an accuracy not graded keeps its n and has no value."""
    execd = {}
    for column in EXEC_COLUMNS:
        rate = score.executable.get(column)
        execd[column] = share_with_ci(rate.outcomes if rate is not None else ())
    acc = {}
    for column, a in correctness(score).items():
        one = share_with_ci(a.outcomes if a is not None else [])
        if a is not None and not a.graded:
            one.update(value=None, ci_lo=None, ci_hi=None)
        acc[column] = one
    return {"executable": execd, "accuracy": acc}
