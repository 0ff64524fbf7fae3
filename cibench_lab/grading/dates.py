"""Dates on a plot's x axis in pandas' period units, so both ways of drawing a time series compare.

``Series.plot`` draws a regular time series on a *period* axis: x is the period's ordinal
(months since 1970-01 for a monthly series), while ``ax.plot(df.index, ...)`` puts the same
points at matplotlib dates (days since 1970-01-01).  When one figure has a period axis and
the other a date axis, the date side's x values are turned into ordinals of that period
(the period each date falls in), numpy's datetime64 doing the calendar.  Periods numpy
cannot express this way (weeks, business days, multiples) are left alone: the series then
differ, as their pixels do.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .figure import Array, Axes, Series

#: pandas period code (without its anchor, e.g. ``Q-DEC`` -> ``Q``) -> ordinal from days since 1970.
_UNIT = {"D": "D", "M": "M", "ME": "M", "Y": "Y", "YE": "Y", "A": "Y"}
_UNIT.update({"h": "h", "H": "h", "min": "m", "T": "m"})


def period_code(units: str | None) -> str | None:
    if not units or not units.startswith("period:"):
        return None
    code = units.split(":", 1)[1].split("-")[0]
    return code if code in _UNIT or code == "Q" else None


def ordinals(days: np.ndarray, code: str) -> np.ndarray:
    """Matplotlib dates (days since 1970) -> the ordinals of the periods they fall in."""
    out = np.full(days.shape, np.nan)
    ok = np.isfinite(days) & (np.abs(days) < 1e7)
    if code in ("h", "H"):
        out[ok] = np.floor(days[ok] * 24.0)
        return out
    if code in ("min", "T"):
        out[ok] = np.floor(days[ok] * 1440.0)
        return out
    d = np.floor(days[ok]).astype(np.int64).astype("datetime64[D]")
    unit = "M" if code == "Q" else _UNIT[code]
    value = d.astype(f"datetime64[{unit}]").astype(np.int64)
    out[ok] = value // 3 if code == "Q" else value
    return out


def on_periods(ax: Axes, code: str) -> Axes:
    """``ax`` (a date x axis) with its x values and limits as ordinals of period ``code``."""
    lim = ordinals(np.asarray(ax.x.lim, dtype=np.float64), code)
    x = replace(ax.x, lim=(float(lim[0]), float(lim[1])), units=f"period:{code}")
    return replace(ax, x=x, series=tuple(_series(s, code) for s in ax.series))


def _series(s: Series, code: str) -> Series:
    if s.points is None:
        return s
    return replace(s, points=_points(s.points, s.columns, code))


def _points(a: Array, columns: tuple[str, ...], code: str) -> Array:
    if a.values is None:
        sample = _points(a.sample, columns, code) if a.sample is not None else None
        return replace(a, sample=sample, digest=None)
    values = a.values.astype(np.float64, copy=True)
    for k, axis in enumerate(columns[: values.shape[1]]):
        if axis == "x":
            values[:, k] = ordinals(values[:, k], code)
    return replace(a, values=values)


def aligned(pred: Axes, ref: Axes) -> tuple[Axes, Axes]:
    """The pair with a date axis put on the other side's periods, when that is what differs."""
    if pred.x.units == "date" and (code := period_code(ref.x.units)):
        return on_periods(pred, code), ref
    if ref.x.units == "date" and (code := period_code(pred.x.units)):
        return pred, on_periods(ref, code)
    return pred, ref
