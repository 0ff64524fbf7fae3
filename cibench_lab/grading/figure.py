"""A figure's structure, read from untrusted output: bounded, schema-checked, then typed.

The kernel's start code displays, beside each matplotlib figure's ``image/png``, what the
figure shows (``FIGURE_MIME``; ``kernels/inkernel/figure_capture.py`` builds it).  The player's code
runs in that kernel and may publish anything under that MIME, so a bundle is read only
within bounds: at most ``MAX_BYTES`` of JSON, ``MAX_DEPTH`` levels and ``MAX_NODES``
values (checked by an iterative walk before anything recursive touches it), then the
packaged JSON schema (``figure.schema.json``: types, required fields, counts, string
lengths), then each array's ``shape`` against its data.  Anything else raises
:class:`FigureError` with a reason for the badge, and the grade falls back to SSIM.

:func:`read_figure` turns a bundle into :class:`Figure`: data axes with their
:class:`Series` (one per line, bar group, scatter, polygon, patch, image ...), texts,
ticks, legends and, where the axes shows images, what they look like (``shown``: a small
RGB raster, checked for its shape and its 0-255 values); the colour bars counted apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..tasks.plot import FIGURE_MAX_BYTES, FIGURE_MIME

MAX_BYTES = FIGURE_MAX_BYTES
MAX_DEPTH = 12
MAX_NODES = 400_000
#: Series one axes may hold once read (a collection gives one per path): bounds the pairing work.
MAX_SERIES = 512
#: An axes' shown image: RGB, at most this many pixels a side (``figure_capture.SHOWN_SIDE``).
SHOWN_SIDE = 64
_SPECIAL = {"inf": np.inf, "-inf": -np.inf}


class FigureError(ValueError):
    """A bundle that cannot be read; the message says why, for a person."""


@dataclass(frozen=True)
class Array:
    """Numbers as captured: all of them (``values``) or a digest and a downsample."""

    shape: tuple[int, ...]
    values: np.ndarray | None = None
    digest: str | None = None
    sample: Array | None = None


@dataclass(frozen=True)
class Series:
    """One thing drawn with data: ``points`` rows (line/scatter/bars/vertices) or ``image``."""

    kind: str  # line | scatter | bar | barh | area | segments | patch | pie | collection | image | heatmap
    points: Array | None = None  # rows; for bars (position, value, base)
    image: Array | None = None
    ordered: bool = True  # False where the plot type is order-insensitive (scatter, bars)
    columns: tuple[str, ...] = ("x", "y")  # which axis each column's values lie on
    colors: tuple[str, ...] = ()
    cmap: str | None = None
    clim: tuple[float, float] | None = None


@dataclass(frozen=True)
class Axis:
    scale: str
    lim: tuple[float, float]
    ticks: tuple[float, ...]
    ticklabels: tuple[str, ...]
    rotation: float
    units: str | None = None  # "date" (days since 1970) | "period:<freq>" (pandas ordinals) | None


@dataclass(frozen=True)
class Axes:
    titles: tuple[str, ...]
    xlabel: str
    ylabel: str
    x: Axis
    y: Axis
    legend: tuple[str, ...] | None
    series: tuple[Series, ...]
    #: What its image layers show (RGB 0-255, at most SHOWN_SIDE a side), None when it shows no image
    #: or was captured before shown images were.
    shown: np.ndarray | None = None


@dataclass(frozen=True)
class Figure:
    size: tuple[float, float]
    suptitle: str
    legends: tuple[tuple[str, ...], ...]
    axes: tuple[Axes, ...]
    colorbars: int = 0
    truncated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = json.loads(resources.files(__package__).joinpath("figure.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def bundle_of(output: dict[str, Any]) -> Any:
    """The figure bundle in one nbformat output, or None."""
    return (output.get("data") or {}).get(FIGURE_MIME)


def check_bounds(bundle: Any) -> None:
    """JSON size (C-speed; a too-deep value fails there too), then depth and value count by
    an iterative walk over the containers; FigureError beyond."""
    try:
        size = len(json.dumps(bundle, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as err:
        raise FigureError(f"not JSON ({err.__class__.__name__})") from None
    if size > MAX_BYTES:
        raise FigureError(f"too large ({size:,} bytes; limit {MAX_BYTES:,})")
    if not isinstance(bundle, (dict, list)):
        return
    stack: list[tuple[Any, int]] = [(bundle, 1)]
    nodes = 1
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise FigureError(f"nested deeper than {MAX_DEPTH} levels")
        items = value.values() if isinstance(value, dict) else value
        nodes += len(items)
        if nodes > MAX_NODES:
            raise FigureError(f"more than {MAX_NODES:,} values")
        stack.extend((v, depth + 1) for v in items if isinstance(v, (dict, list)))


def validate(bundle: Any) -> None:
    """Bounds, then the schema; FigureError naming the first problem's field."""
    if isinstance(bundle, dict) and "omitted" in bundle:
        raise FigureError(f"omitted by the kernel ({str(bundle.get('omitted'))[:40]})")
    check_bounds(bundle)
    errors = sorted(_validator().iter_errors(bundle), key=lambda e: list(e.path))
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(top)"
        raise FigureError(f"does not match the figure schema at {where}")


def read_figure(bundle: Any) -> Figure:
    """A validated, typed Figure, or FigureError."""
    validate(bundle)
    axes, colorbars = [], 0
    for ax in bundle["axes"]:
        if ax["kind"] == "colorbar":
            colorbars += 1
        else:
            axes.append(_axes(ax))
    return Figure(
        size=(float(bundle["size"][0]), float(bundle["size"][1])),
        suptitle=bundle["suptitle"],
        legends=tuple(tuple(leg["entries"]) for leg in bundle["legends"] if leg),
        axes=tuple(axes),
        colorbars=colorbars,
        truncated=bool(bundle.get("truncated")) or any(a.get("truncated") for a in bundle["axes"]),
    )


def _numbers(data: list[Any]) -> np.ndarray:
    try:
        values = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        values = np.asarray([_number(v) for v in data], dtype=np.float64)
    if values.ndim != 1:
        raise FigureError("an array's data is not a flat list of numbers")
    return values


def _number(v: Any) -> float:
    if v is None:
        return float("nan")
    if isinstance(v, str) and v in _SPECIAL:
        return float(_SPECIAL[v])
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise FigureError("an array holds a value that is not a number")


def array(obj: dict[str, Any]) -> Array:
    shape = tuple(int(n) for n in obj["shape"])
    if "data" in obj:
        values = _numbers(obj["data"])
        if int(np.prod(shape, dtype=np.int64)) != values.size:
            raise FigureError("an array's data does not fill its shape")
        return Array(shape, values=values.reshape(shape))
    return Array(shape, digest=obj["digest"], sample=array(obj["sample"]))


def _rows(a: Array, width: int) -> Array:
    """``a`` as rows of ``width`` columns (its sample too), or FigureError."""
    if a.values is not None:
        if a.values.size % width:
            raise FigureError("a series' points are not rows of coordinates")
        return Array((a.values.size // width, width), values=a.values.reshape(-1, width))
    assert a.sample is not None
    return Array(a.shape, digest=a.digest, sample=_rows(a.sample, width))


def _axis(obj: dict[str, Any]) -> Axis:
    return Axis(
        scale=obj["scale"],
        lim=(float(obj["lim"][0]), float(obj["lim"][1])),
        ticks=tuple(_number(v) for v in obj["ticks"]),
        ticklabels=tuple(obj["ticklabels"]),
        rotation=float(obj["rotation"]),
        units=obj.get("units"),
    )


def _axes(obj: dict[str, Any]) -> Axes:
    series: list[Series] = []
    for artist in obj["artists"]:
        series += _series(artist)
        if len(series) > MAX_SERIES:
            raise FigureError(f"more than {MAX_SERIES} series in one axes")
    legend = obj["legend"]
    return Axes(
        titles=tuple(obj["titles"]),
        xlabel=obj["xlabel"],
        ylabel=obj["ylabel"],
        x=_axis(obj["x"]),
        y=_axis(obj["y"]),
        legend=tuple(legend["entries"]) if legend else None,
        series=tuple(series),
        shown=_raster(obj["shown"]) if "shown" in obj else None,
    )


def _raster(obj: dict[str, Any]) -> np.ndarray:
    """An axes' shown image: (rows, columns, 3) of integers 0-255, at most ``SHOWN_SIDE`` a side."""
    shape = tuple(int(n) for n in obj["shape"])
    values = _numbers(obj["data"])
    if len(shape) != 3 or shape[2] != 3 or max(shape[:2]) > SHOWN_SIDE or min(shape) < 1:
        raise FigureError(f"a shown image is not RGB of at most {SHOWN_SIDE} pixels a side")
    if values.size != shape[0] * shape[1] * 3:
        raise FigureError("a shown image's data does not fill its shape")
    if not (np.isfinite(values).all() and values.min() >= 0 and values.max() <= 255):
        raise FigureError("a shown image holds values outside 0-255")
    return values.reshape(shape)


def _need(artist: dict[str, Any], key: str) -> Any:
    if key not in artist:
        raise FigureError(f"a {artist['type']} has no {key}")
    return artist[key]


def _series(artist: dict[str, Any]) -> list[Series]:
    kind = artist["type"]
    colors = tuple(c[:7] for c in artist.get("colors") or [artist.get("color")] if c)
    if kind == "line":
        marks_only = artist.get("linestyle") in ("None", "none", "", " ")
        points = _rows(array(_need(artist, "xy")), 2)
        return [Series("scatter" if marks_only else "line", points, ordered=not marks_only, colors=colors)]
    if kind == "bars":
        horizontal = artist.get("orientation") == "horizontal"
        rows = _rows(array(_need(artist, "bars")), 4)
        rows = _columns(rows, 3)  # the thickness (bar width) is styling, not data
        columns = ("y", "x", "x") if horizontal else ("x", "y", "y")
        return [Series("barh" if horizontal else "bar", rows, ordered=False, columns=columns, colors=colors)]
    if kind == "scatter":
        return [Series("scatter", _rows(array(_need(artist, "xy")), 2), ordered=False, colors=colors)]
    if kind in ("image", "mesh"):
        clim = artist.get("clim") or []
        lims = (_number(clim[0]), _number(clim[1])) if len(clim) == 2 else None
        return [
            Series(
                "image" if kind == "image" else "heatmap",
                image=array(_need(artist, "array")),
                colors=colors,
                cmap=artist.get("cmap"),
                clim=lims,
            )
        ]
    if kind == "segments":
        paths = [_rows(array(p), 2) for p in _need(artist, "paths")]
        return [Series("segments", _stack(paths), ordered=False, colors=colors)] if paths else []
    if kind == "patch":
        patch_kind = "pie" if artist.get("class") == "Wedge" else "patch"
        return [Series(patch_kind, _rows(array(_need(artist, "xy")), 2), colors=colors)]
    return [Series(kind, _rows(array(p), 2), colors=colors) for p in _need(artist, "paths")]


def _columns(a: Array, n: int) -> Array:
    if a.values is not None:
        return Array((a.values.shape[0], n), values=a.values[:, :n])
    assert a.sample is not None
    return Array(a.shape, digest=a.digest, sample=_columns(a.sample, n))


def _stack(parts: list[Array]) -> Array:
    """Segments as one set of points (their samples when any part was too large)."""
    rows = [p.values if p.values is not None else p.sample.values for p in parts]  # type: ignore[union-attr]
    values = np.concatenate([r for r in rows if r is not None]) if rows else np.zeros((0, 2))
    return Array(values.shape, values=values)
