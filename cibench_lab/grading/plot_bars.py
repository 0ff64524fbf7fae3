"""Bars, points and lines paired by their category label, whatever the axis direction.

A bar chart's bars are compared as a set of (position, value, base) (:mod:`.plot`).  On a
categorical axis the position is only where a category happens to be drawn: ``barh`` of the
data reversed and ``barh`` of the data with ``ax.invert_yaxis()`` show the same picture with every
category at another position.  So where both figures' bar axis is categorical and shows the same
categories in the same order (bottom to top, left to right, as drawn: an inverted axis read the
other way), the turn's bars are also tried at the reference's position of their own label
(:func:`by_label`), and the better of the two pairings counts.  Points and lines drawn over
categories on x are paired the same way (a line drawn the other way along an inverted axis is the
same line).  The same bars in another order (smallest on top where the reference has the largest)
stay a different picture.

An axis is categorical when it has ticks and every tick carries a label that is not the tick's own
position written as a number (``Thur``, ``item a``, ``2019`` at position 0), the labels all
different.  A bar series is placed on it when each of its bars lies within half a tick spacing
of a tick, all at one offset from their tick (0 for plain bars; its own offset for each group of
side-by-side bars), no two bars on one tick.  A bar whose label the reference does not have is
paired with nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .figure import Array, Axes, Axis, Series
from .plot_elements import categories, shown_labels

TOL = 0.002
BARS = ("bar", "barh")
#: What is paired by label: bars on their category axis, points and lines over categories on x.
LABELLED = (*BARS, "line", "scatter")


def _placed(positions: np.ndarray, cats: dict[str, float], span: float) -> tuple[list[str], float] | None:
    """Each bar's category label and the series' one offset from its tick, or None when not placed."""
    labels, ticks = list(cats), np.array(list(cats.values()))
    if not len(positions) or not np.isfinite(positions).all() or not np.isfinite(ticks).all():
        return None
    spacing = _spacing(cats) if len(ticks) > 1 else np.inf
    nearest = np.abs(positions[:, None] - ticks[None, :]).argmin(axis=1)
    offsets = positions - ticks[nearest]
    if len(set(nearest.tolist())) != len(nearest) or np.abs(offsets).max() >= spacing / 2:
        return None
    if np.ptp(offsets) > TOL * span:
        return None
    return [labels[i] for i in nearest], float(offsets.mean())


def _span(axis: Axis) -> float:
    span = abs(axis.lim[1] - axis.lim[0])
    return span if np.isfinite(span) and span > 0 else 1.0


def _axis_of(ax: Axes, kind: str) -> Axis:
    return ax.y if kind == "barh" else ax.x


def _moved(s: Series, mine: Axis, ref_cats: dict[str, float], scale: float) -> Series | None:
    """``s`` with each bar at the reference's position of its label (its offset scaled), or None."""
    cats = categories(mine)
    rows = s.points.values if s.points is not None else None
    if cats is None or rows is None or rows.ndim != 2:
        return None
    placed = _placed(rows[:, 0], cats, _span(mine))
    if placed is None:
        return None
    labels, offset = placed
    moved = rows.copy()
    moved[:, 0] = [ref_cats[lab] + offset * scale if lab in ref_cats else np.nan for lab in labels]
    if s.ordered and len(moved) > 1 and (np.diff(moved[:, 0]) < 0).all():
        moved = moved[::-1]  # a line drawn the other way along an inverted axis: the same line
    return replace(s, points=Array(moved.shape, values=moved))


def _ref_placed(ref: Axes, kind: str, cats: dict[str, float]) -> bool:
    span = _span(_axis_of(ref, kind))
    for s in ref.series:
        if s.kind == kind:
            rows = s.points.values if s.points is not None else None
            if rows is None or rows.ndim != 2 or _placed(rows[:, 0], cats, span) is None:
                return False
    return True


def by_label(pred: Axes, ref: Axes) -> list[Axes]:
    """``[pred]``, and ``pred`` with its bars (points, lines) paired by label when both axes they
    stand on are categorical."""
    series, changed = list(pred.series), False
    for kind in LABELLED:
        ref_cats = categories(_axis_of(ref, kind))
        pred_cats = categories(_axis_of(pred, kind))
        if ref_cats is None or pred_cats is None or not _ref_placed(ref, kind, ref_cats):
            continue
        if shown_labels(_axis_of(pred, kind)) != shown_labels(_axis_of(ref, kind)):
            continue  # the categories in another order: another picture
        scale = _spacing(ref_cats) / _spacing(pred_cats)
        for i, s in enumerate(series):
            moved = _moved(s, _axis_of(pred, kind), ref_cats, scale) if s.kind == kind else None
            if moved is not None:
                series[i], changed = moved, True
    return [pred, replace(pred, series=tuple(series))] if changed else [pred]


def _spacing(cats: dict[str, float]) -> float:
    ticks = np.sort(np.array(list(cats.values())))
    spacing = float(np.diff(ticks).min()) if len(ticks) > 1 else 1.0
    return spacing if np.isfinite(spacing) and spacing > 0 else 1.0
