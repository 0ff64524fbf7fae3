"""The structural plot grade: the figure's data, then the step's declared elements.

Two :class:`~.figure.Figure` s (the turn's and the reference's) are compared axes by axes
(in order; colour bars are counted apart).  Within an axes each reference series is paired
with the turn's series that matches it best, of any chart type, so a bar chart and a line
of the same means both *have the right data*; the chart type is an element of its own.

Numbers match within ``TOL`` (0.2 %) of the reference axes' span on the axis they lie on
(log10 space on a log axis) plus 1e-9 relative: less than a pixel of a typical figure.
Bars and scatter points are compared as sets, lines and polygons in order; a line sampled at
other x (more or fewer points of the same curve) within ``CURVE_TOL`` once interpolated.
Bars on a categorical axis are also paired by their category label (:mod:`.plot_bars`).
Images (``imshow``) are compared as shown: the axes' image layers composited as they look,
one unit of the axes' data (:mod:`.plot_shown`).  A figure captured before that raster existed,
and heatmaps, compare the array: 2-D values through their colour limits, RGB(A) in [0, 1];
arrays kept as a digest match when the digests agree, else their downsamples are compared.

A series' credit is the share of its bars/points that match (1 or 0 for lines, polygons and
images); the data share is the credits' sum over the larger of the two series counts (an
extra series costs as much as a missing one).  Each declared element (tasks/plot.py) is 1
or 0 (:mod:`.plot_elements`).  Score = data share × the share of declared elements that match;
``passed`` when the score is 1.  Undeclared elements never change the score; one that differs is named
"not graded".  Messages never quote the reference's texts or values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..tasks.plot import ELEMENTS
from .dates import aligned
from .figure import Array, Axes, Figure, Series
from .plot_bars import by_label
from .plot_elements import TOL, elements, missing
from .plot_shown import GREY, SHARE, fallback_note, shown_pair, without_images
from .plot_words import NAMES, NOUNS, PLURAL, counted, kind_name, with_article

#: Two samplings of one line agree this closely (share of the span) once interpolated.
CURVE_TOL = 0.01


@dataclass
class Comparison:
    """What matched: the data share, each element's verdict, and messages for the badge."""

    data: float
    differences: list[str] = field(default_factory=list)
    elements: dict[str, bool] = field(default_factory=dict)  # every element: does it match?
    declared: tuple[str, ...] = ()
    missing: set[str] = field(default_factory=set)  # elements the turn's figure lacks altogether
    notes: list[str] = field(default_factory=list)  # how the data was compared, when not as usual

    @property
    def score(self) -> float:
        graded = [self.elements[e] for e in self.declared if e in self.elements]
        share = sum(graded) / len(graded) if graded else 1.0
        return self.data * share

    @property
    def passed(self) -> bool:
        return self.score >= 1.0

    def detail(self) -> str:
        parts = [
            "data matches" if self.data >= 1.0 else "data differs: " + ", ".join(counted(self.differences))
        ]
        missing = [e for e in self.declared if e in self.elements and not self.elements[e]]
        matched = [e for e in self.declared if self.elements.get(e)]
        if matched:
            parts.append(
                "declared "
                + ", ".join(NAMES[e] for e in matched)
                + (" match" if len(matched) > 1 else " matches")
            )
        parts += [
            f"missing the declared {NAMES[e]}"
            if e in self.missing
            else f"the declared {NAMES[e]} {'differ' if e in PLURAL else 'differs'}"
            for e in missing
        ]
        ungraded = [NAMES[e] for e in ELEMENTS if e not in self.declared and not self.elements.get(e, True)]
        if ungraded:
            parts.append(", ".join(ungraded) + " not graded")
        return "; ".join(parts + self.notes)


def compare(pred: Figure, ref: Figure, declared: tuple[str, ...]) -> Comparison:
    """``pred`` (the turn's figure) against ``ref``; ``declared``: the step's elements."""
    diffs: list[str] = []
    credit, units = 0.0, 0
    for i in range(max(len(pred.axes), len(ref.axes))):
        if i >= len(ref.axes):
            diffs.append("an extra plot area")
            units += max(1, len(pred.axes[i].series))
        elif i >= len(pred.axes):
            diffs.append("a plot area missing")
            units += max(1, len(ref.axes[i].series))
        else:
            got, n = _axes_data(pred.axes[i], ref.axes[i], diffs)
            credit, units = credit + got, units + n
    data = credit / units if units else 1.0
    notes = [note for p, r in zip(pred.axes, ref.axes, strict=False) if (note := fallback_note(p, r))]
    comparison = Comparison(data, diffs, elements(pred, ref), declared, missing(pred, ref))
    comparison.notes = list(dict.fromkeys(notes))
    return comparison


# --------------------------------------------------------------------------- data


def _axes_data(pred: Axes, ref: Axes, diffs: list[str]) -> tuple[float, int]:
    """(credit, units) of one axes pair; messages appended to ``diffs``.  Images both figures show as
    a raster are one unit (:mod:`.plot_shown`); bars are paired by position, or by label where that
    pairs more (:mod:`.plot_bars`)."""
    pred, ref = aligned(pred, ref)
    images = shown_pair(pred, ref)
    if images is not None:
        pred, ref = without_images(pred), without_images(ref)
    tried = []
    for candidate in by_label(pred, ref):
        found: list[str] = []
        tried.append((_series_data(candidate, ref, found), found))
    (credit, units), found = max(tried, key=lambda t: t[0][0])
    diffs += found
    if images is None:
        return credit, units
    share = images.alike()
    if share < SHARE:
        diffs.append(f"the shown image differs ({share:.0%} of its pixels within {GREY} grey levels; "
                     f"{SHARE:.0%} needed)")  # fmt: skip
    return credit + float(share >= SHARE), units + 1


def _series_data(pred: Axes, ref: Axes, diffs: list[str]) -> tuple[float, int]:
    """(credit, units) of the series of one axes pair, each reference series paired with its best match."""
    spans = {"x": _span(ref.x.lim, ref.x.scale), "y": _span(ref.y.lim, ref.y.scale)}
    scales = {"x": ref.x.scale, "y": ref.y.scale}
    left = list(range(len(pred.series)))
    credit = 0.0
    for r in ref.series:
        share, j = _best(pred.series, left, r, spans, scales)
        if share <= 0.0:  # nothing shows this data: the same kind of series, if any, is its attempt
            j = next((k for k in left if pred.series[k].kind == r.kind), -1)
        if j < 0:
            diffs.append(f"{with_article(kind_name(r.kind))} missing")
            continue
        left.remove(j)
        credit += share
        if share < 1.0:
            diffs.append(_series_diff(share, pred.series[j], r))
    for j in left:
        diffs.append(f"an extra {kind_name(pred.series[j].kind)}")
    return credit, max(len(ref.series), len(pred.series))


def _best(
    series: tuple[Series, ...], left: list[int], r: Series, spans: dict, scales: dict
) -> tuple[float, int]:
    """The unpaired series showing most of ``r``'s data: (share, index), same kind first and
    the first full match taken at once."""
    best = (0.0, -1)
    for j in sorted(left, key=lambda k: series[k].kind != r.kind):
        share = _series_match(series[j], r, spans, scales)
        if share >= 1.0:
            return share, j
        if share > best[0]:
            best = (share, j)
    return best


def _span(lim: tuple[float, float], scale: str) -> float:
    lo, hi = _scaled(np.asarray(lim, dtype=np.float64), scale)
    span = abs(float(hi) - float(lo))
    return span if np.isfinite(span) and span > 0 else 1.0


def _scaled(values: np.ndarray, scale: str) -> np.ndarray:
    if scale == "log":
        with np.errstate(all="ignore"):
            return np.log10(np.where(values > 0, values, np.nan))
    return values


def _series_match(pred: Series, ref: Series, spans: dict, scales: dict) -> float:
    """The share of ``ref``'s data that ``pred`` shows (0 when they cannot be compared)."""
    if (ref.image is None) != (pred.image is None):
        return 0.0
    if ref.image is not None and pred.image is not None:
        return 1.0 if _image_matches(pred, ref) else 0.0
    if ref.points is None or pred.points is None:
        return 0.0
    if pred.columns[:2] != ref.columns[:2]:
        return 0.0  # bars against horizontal bars: the values lie on other axes
    return _points_share(pred, ref, spans, scales)


def _values(a: Array) -> tuple[np.ndarray | None, bool]:
    """The rows compared: all values, or the downsample (second: whether it is one)."""
    if a.values is not None:
        return a.values, False
    return (a.sample.values if a.sample is not None else None), True


def _points_share(pred: Series, ref: Series, spans: dict, scales: dict) -> float:
    assert pred.points is not None and ref.points is not None
    if pred.points.digest and pred.points.digest == ref.points.digest:
        return 1.0
    p, _ = _values(pred.points)
    r, _ = _values(ref.points)
    if p is None or r is None or p.ndim != 2 or r.ndim != 2 or min(p.shape[1], r.shape[1]) < 2:
        return 0.0
    if len(r) == 0:
        return 1.0 if len(p) == 0 else 0.0
    p, r = _normalised(p, pred.columns, scales, spans), _normalised(r, ref.columns, scales, spans)
    if p.shape[1] != r.shape[1]:  # bars (position, value, base) against a line or points
        width = min(p.shape[1], r.shape[1])
        p, r = p[:, :width], r[:, :width]
    if ref.ordered and pred.ordered:
        if len(p) == len(r):
            return 1.0 if _close(p, r).all() else 0.0
        return 1.0 if _same_curve(p, r) else 0.0
    return _matched(p, r) / max(len(p), len(r))


def _same_curve(p: np.ndarray, r: np.ndarray) -> bool:
    """Two samplings of one curve (``np.linspace(0, 1, 50)`` against 200 points, a KDE on
    another grid): x increasing in both, the same extent, and the turn's line, interpolated
    at the reference's x, within ``CURVE_TOL`` everywhere."""
    if p.shape[1] != 2 or min(len(p), len(r)) < 2 or not (np.isfinite(p).all() and np.isfinite(r).all()):
        return False
    if not ((np.diff(p[:, 0]) > 0).all() and (np.diff(r[:, 0]) > 0).all()):
        return False
    if abs(p[0, 0] - r[0, 0]) > TOL or abs(p[-1, 0] - r[-1, 0]) > TOL:
        return False
    y = np.interp(r[:, 0], p[:, 0], p[:, 1])
    return bool((np.abs(y - r[:, 1]) <= CURVE_TOL).all())


def _matched(p: np.ndarray, r: np.ndarray) -> int:
    """How many rows of ``r`` have their own row of ``p`` within the tolerance (a set match:
    each reference row, in order, takes its first free neighbour; a k-d tree finds them)."""
    from scipy.spatial import cKDTree

    p, r = np.nan_to_num(p, nan=1e12), np.nan_to_num(r, nan=1e12)  # NaN rows match each other
    p, r = np.clip(p, -1e15, 1e15), np.clip(r, -1e15, 1e15)
    near = cKDTree(p).query_ball_point(r, TOL, p=np.inf)
    free = np.ones(len(p), dtype=bool)
    found = 0
    for candidates in near:
        hit = next((i for i in sorted(candidates) if free[i]), None)
        if hit is not None:
            free[hit] = False
            found += 1
    return found


def _normalised(rows: np.ndarray, cols: tuple[str, ...], scales: dict, spans: dict) -> np.ndarray:
    """Rows in units of the reference axes' span (log10 on a log axis); extra columns lie on y."""
    out = np.empty_like(rows, dtype=np.float64)
    for k, axis in enumerate(cols[: rows.shape[1]] + ("y",) * max(0, rows.shape[1] - len(cols))):
        out[:, k] = _scaled(rows[:, k], scales[axis]) / spans[axis]
    return out


def _close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row: every coordinate within TOL (NaN matches NaN, an infinity the same one)."""
    with np.errstate(invalid="ignore"):
        near = np.abs(a - b) <= TOL + 1e-9 * np.abs(b)
    near |= (a == b) | (np.isnan(a) & np.isnan(b))  # equal infinities (an ECDF starts at -inf)
    return near.all(axis=1)


def _series_diff(share: float, pred: Series, ref: Series) -> str:
    """How a paired series differs; never the reference's count or values (when the counts
    differ, only that they do)."""
    if ref.kind in NOUNS and not ref.ordered and ref.points is not None:
        r, sampled = _values(ref.points)
        p, pred_sampled = _values(pred.points) if pred.points is not None else (None, True)
        total = len(r) if r is not None else 0
        if not sampled and total and (pred_sampled or p is None or len(p) != total):
            return f"a different number of {NOUNS[ref.kind]}"
        if not sampled and total:
            wrong = round((1.0 - share) * total)
            return f"{wrong} of {total} {NOUNS[ref.kind]} {'differs' if wrong == 1 else 'differ'}"
    return f"{with_article(kind_name(ref.kind))} differs"


def _image_matches(pred: Series, ref: Series) -> bool:
    assert pred.image is not None and ref.image is not None
    if pred.image.shape != ref.image.shape:
        return False
    if ref.image.digest and pred.image.digest == ref.image.digest:
        return True
    p, _ = _values(pred.image)
    r, _ = _values(ref.image)
    if p is None or r is None or p.shape != r.shape:
        return False
    p, r = _shown(p, pred), _shown(r, ref)
    with np.errstate(invalid="ignore"):
        near = (np.abs(p - r) <= 2 * TOL) | (p == r) | (np.isnan(p) & np.isnan(r))
    return bool(near.all())


def _shown(values: np.ndarray, s: Series) -> np.ndarray:
    """What the image shows: 2-D through its colour limits, RGB(A) in [0, 1]."""
    v = values.astype(np.float64)
    if v.ndim == 2:
        lo, hi = s.clim if s.clim else (np.nanmin(v), np.nanmax(v))
        width = hi - lo if np.isfinite(hi - lo) and hi != lo else 1.0
        return np.clip((v - lo) / width, 0.0, 1.0)
    return v / 255.0 if np.nanmax(v, initial=0.0) > 1.0 else v
