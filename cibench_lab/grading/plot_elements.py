"""The structural plot grade's elements (``tasks/plot.py: ELEMENTS``): does each match, does the turn lack it.

Texts are compared whitespace- and case-folded; the x and y axis labels are two elements, each
compared axes by axes (a step that states only the y label grades only the y label).
"""

from __future__ import annotations

import re

import numpy as np

from .figure import Axes, Axis, Figure

TOL = 0.002
#: Colours closer than this (RGB in [0, 1], max channel difference) are the same colour.
COLOR_TOL = 0.06


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _titles(fig: Figure) -> list[str]:
    return [norm(t) for t in (fig.suptitle, *[t for ax in fig.axes for t in ax.titles]) if norm(t)]


def _labels(fig: Figure, axis: str) -> list[str]:
    return [norm(ax.xlabel if axis == "x" else ax.ylabel) for ax in fig.axes]


def missing(pred: Figure, ref: Figure) -> set[str]:
    """Elements the reference has and the turn's figure lacks altogether."""
    has = {
        "title": (bool(_titles(ref)), bool(_titles(pred))),
        "x_label": (any(_labels(ref, "x")), any(_labels(pred, "x"))),
        "y_label": (any(_labels(ref, "y")), any(_labels(pred, "y"))),
        "legend": (bool(_legends(ref)), bool(_legends(pred))),
        "colorbar": (ref.colorbars > 0, pred.colorbars > 0),
    }
    return {e for e, (in_ref, in_pred) in has.items() if in_ref and not in_pred}


def elements(pred: Figure, ref: Figure) -> dict[str, bool]:
    """Every element: does the turn's figure match the reference's?"""
    same_count = len(pred.axes) == len(ref.axes)
    pairs = list(zip(pred.axes, ref.axes, strict=False))
    return {
        "title": sorted(_titles(pred)) == sorted(_titles(ref)),  # wherever drawn: suptitle, centre or left
        "x_label": same_count and _labels(pred, "x") == _labels(ref, "x"),
        "y_label": same_count and _labels(pred, "y") == _labels(ref, "y"),
        "legend": _legends(pred) == _legends(ref),
        "colors": same_count and all(_colors_match(p, r) for p, r in pairs),
        "colorbar": pred.colorbars == ref.colorbars,
        "ticks": same_count and all(_ticks_match(p, r) for p, r in pairs),
        "figsize": all(abs(a - b) <= 0.01 * max(b, 0.1) for a, b in zip(pred.size, ref.size, strict=True)),
        "chart_type": same_count and all(_kinds(p) == _kinds(r) for p, r in pairs),
    }


def _legends(fig: Figure) -> list[list[str]]:
    found = [sorted(norm(e) for e in ax.legend) for ax in fig.axes if ax.legend is not None]
    return found + [sorted(norm(e) for e in leg) for leg in fig.legends]


def _kinds(ax: Axes) -> set[str]:
    return {s.kind for s in ax.series if s.kind != "segments"}


def _span(lim: tuple[float, float]) -> float:
    span = abs(float(lim[1]) - float(lim[0]))
    return span if np.isfinite(span) and span > 0 else 1.0


def _ticks_match(p: Axes, r: Axes) -> bool:
    """Tick labels in the order they are shown (an inverted axis read the other way), the rotation, and
    the positions -- except on a categorical axis, where a category's position is not shown."""
    for pa, ra in ((p.x, r.x), (p.y, r.y)):
        if shown_labels(pa) != shown_labels(ra) or len(pa.ticks) != len(ra.ticks):
            return False
        if abs((pa.rotation - ra.rotation + 180.0) % 360.0 - 180.0) > 1.0:
            return False
        if categories(pa) is not None and categories(ra) is not None:
            continue
        span = _span(ra.lim)
        if any(abs(a - b) > TOL * span for a, b in zip(pa.ticks, ra.ticks, strict=True)):
            return False
    return True


def shown_labels(axis: Axis) -> list[str]:
    """The tick labels in the order they are shown: by position, read the other way on an inverted axis."""
    labels = [norm(t) for t in axis.ticklabels]
    if len(axis.ticks) != len(labels):
        return labels
    order = sorted(range(len(labels)), key=lambda i: axis.ticks[i], reverse=axis.lim[0] > axis.lim[1])
    return [labels[i] for i in order]


def categories(axis: Axis) -> dict[str, float] | None:
    """Label -> tick position of a categorical axis, else None."""
    if not axis.ticks or len(axis.ticks) != len(axis.ticklabels):
        return None
    found: dict[str, float] = {}
    for position, label in zip(axis.ticks, axis.ticklabels, strict=True):
        key = norm(label)
        if not key or key in found or _is_position(key, position):
            return None
        found[key] = float(position)
    return found


def _is_position(label: str, position: float) -> bool:
    try:
        value = float(label.replace("\u2212", "-").replace(",", ""))
    except ValueError:
        return False
    return abs(value - position) <= 1e-6 * max(1.0, abs(position))


def _rgb(color: str) -> np.ndarray:
    return np.array([int(color[i : i + 2], 16) / 255.0 for i in (1, 3, 5)])


def _colors_match(p: Axes, r: Axes) -> bool:
    """The series' colours (or colormaps), series paired in order of kind.  Images both figures show as a
    raster are left out: their colours are part of what they show, graded with the data."""
    ps, rs = sorted(p.series, key=lambda s: s.kind), sorted(r.series, key=lambda s: s.kind)
    if p.shown is not None and r.shown is not None:
        ps, rs = [s for s in ps if s.kind != "image"], [s for s in rs if s.kind != "image"]
    if len(ps) != len(rs):
        return False
    for a, b in zip(ps, rs, strict=True):
        if b.image is not None:
            if a.cmap != b.cmap and b.image.shape and len(b.image.shape) == 2:
                return False
            continue
        if len(a.colors) != len(b.colors):
            return False
        if any(np.abs(_rgb(x) - _rgb(y)).max() > COLOR_TOL for x, y in zip(a.colors, b.colors, strict=True)):
            return False
    return True
