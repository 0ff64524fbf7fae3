"""Kernel-side figure capture: what a matplotlib figure shows, beside its PNG.

This file is *sent as text* in the kernel's start code (``kernel.py: START_CODE``), where
nothing of ``cibench_lab`` is importable: it imports only the standard library, IPython and
(when a figure is displayed, so already loaded) numpy and matplotlib.  :func:`register` adds
an IPython display formatter for :data:`MIME` that recognises ``matplotlib.figure.Figure`` by
its class's module and name, so matplotlib is not imported at start; every display of a
figure (the inline backend's show/flush, a figure as a cell's last expression,
``display(fig)``) then carries :func:`structure` in the same output as its ``image/png``.
A capture that fails, or whose JSON would exceed :data:`MAX_BYTES`, omits or shrinks the
MIME; it never raises into the player's code.  The server treats the bundle as untrusted
(``grading/figure.py``).

Arrays with more than :data:`MAX_FULL` elements (256×256) are kept as a SHA-256 digest of
their float64 bytes plus a bounded downsample (block means to at most 64×64 for images,
evenly spaced rows up to 2,048 for series).  An axes that shows images (``imshow``, ``matshow``)
also carries ``shown``: what its image layers look like on screen (:func:`shown`).  The tests
import this module directly and capture real figures with it in-process.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

MIME = "application/vnd.cibench-lab.figure+json"
VERSION = 1
MAX_BYTES = 1_000_000
MAX_FULL = 65_536
MAX_AXES = 32
MAX_ARTISTS = 256
MAX_PATHS = 256
SERIES_SAMPLE = 2_048
IMAGE_SAMPLE = 64
#: The shown image's raster: at most this many pixels a side, fewer when a figure has many image axes.
SHOWN_SIDE = 64
SHOWN_AXES = 4


def _numbers(flat: Any) -> list:
    """A flat numpy array as JSON numbers: 7 significant digits; NaN -> null, ±inf -> "inf"/"-inf"."""
    import numpy as np

    if flat.dtype.kind in "biu":
        return flat.astype(np.int64).tolist()
    a = flat.astype(np.float64)
    finite = np.isfinite(a)
    with np.errstate(all="ignore"):
        mag = np.where(finite & (a != 0), np.floor(np.log10(np.abs(np.where(finite, a, 1.0)))), 0.0)
        scale = 10.0 ** (6 - mag)
        rounded = np.where(finite, np.round(a * scale) / scale, 0.0)
    values = rounded.tolist()
    if finite.all():
        return values
    return [v if ok else (None if math.isnan(x) else ("inf" if x > 0 else "-inf"))
            for v, ok, x in zip(values, finite.tolist(), a.tolist(), strict=True)]  # fmt: skip


def _block_means(a: Any, side: int) -> Any:
    import numpy as np

    for axis in (0, 1):
        n = a.shape[axis]
        if n > side:
            starts = (np.arange(side) * n) // side
            counts = np.diff(np.append(starts, n)).reshape([-1 if i == axis else 1 for i in range(a.ndim)])
            a = np.add.reduceat(a, starts, axis=axis) / counts
    return a


def array(values: Any, image: bool = False) -> dict[str, Any]:
    """``{"shape", "data"}``, or beyond MAX_FULL elements ``{"shape", "digest", "sample"}``."""
    import numpy as np

    masked: Any = np.ma.asarray(values)
    if masked.dtype.kind not in "biuf" or np.ma.is_masked(masked):
        masked = masked.astype(np.float64).filled(np.nan)
    a = np.asarray(masked)
    if a.size <= MAX_FULL:
        return {"shape": list(a.shape), "data": _numbers(a.ravel())}
    f = np.ascontiguousarray(a, dtype="<f8")
    digest = hashlib.sha256(f.tobytes()).hexdigest()
    if image and a.ndim >= 2:
        sample = _block_means(f, IMAGE_SAMPLE)
    else:
        sample = f[np.unique(np.linspace(0, len(f) - 1, SERIES_SAMPLE).astype(int))]
    return {"shape": list(a.shape), "digest": digest, "sample": array(sample)}


def _hex(color: Any) -> str | None:
    from matplotlib.colors import to_hex

    try:
        return to_hex(color, keep_alpha=True)
    except (TypeError, ValueError):
        return None


def _colors(colors: Any) -> list[str]:
    """Distinct colours, in order of first use, at most 16."""
    import numpy as np

    try:
        rows = np.asarray(colors, dtype=np.float64) if len(colors) else np.zeros((0, 4))
    except (TypeError, ValueError):  # colour names, mixed forms: not worth the bundle
        return []
    if rows.ndim != 2 or not len(rows):
        return []
    _, first = np.unique(rows, axis=0, return_index=True)
    out: list[str] = []
    for i in sorted(first)[:16]:
        h = _hex(rows[i])
        if h is not None and h not in out:
            out.append(h)
    return out


def _line(line: Any) -> dict[str, Any]:
    return {
        "type": "line",
        "xy": array(line.get_xydata()),
        "color": _hex(line.get_color()),
        "label": str(line.get_label()),
        "linestyle": str(line.get_linestyle()),
        "marker": str(line.get_marker()),
    }


def _bars(container: Any) -> dict[str, Any]:
    import numpy as np

    horizontal = getattr(container, "orientation", None) == "horizontal"
    rows = []
    for r in container.patches:
        x, y, w, h = r.get_x(), r.get_y(), r.get_width(), r.get_height()
        rows.append((y + h / 2, w, x, h) if horizontal else (x + w / 2, h, y, w))
    return {
        "type": "bars",
        "orientation": "horizontal" if horizontal else "vertical",
        # (position, value, base, thickness) per bar
        "bars": array(np.reshape(np.asarray(rows, dtype=np.float64), (-1, 4))),
        "colors": _colors([p.get_facecolor() for p in container.patches]),
        "label": str(container.get_label()),
    }


def _vertices(path: Any, transform: Any = None) -> Any:
    verts = path.vertices if transform is None else transform.transform(path.vertices)
    return array(verts)


def _collection(coll: Any) -> dict[str, Any]:
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection, QuadMesh

    name = type(coll).__name__
    colors = _colors(coll.get_facecolor()) or _colors(coll.get_edgecolor())
    base = {"class": name, "colors": colors, "label": str(coll.get_label())}
    if isinstance(coll, QuadMesh):
        cmap = coll.get_cmap()
        return {**base, "type": "mesh", "array": array(coll.get_array(), image=True),
                "cmap": getattr(cmap, "name", None), "clim": list(coll.get_clim())}  # fmt: skip
    if isinstance(coll, PathCollection):
        sizes = coll.get_sizes()
        return {**base, "type": "scatter", "xy": array(coll.get_offsets()), "sizes": array(sizes)}
    if isinstance(coll, LineCollection):
        paths = [array(s) for s in coll.get_segments()[:MAX_PATHS]]
        return {**base, "type": "segments", "paths": paths}
    kind = "area" if isinstance(coll, PolyCollection) else "collection"
    paths = [_vertices(p) for p in coll.get_paths()[:MAX_PATHS]]
    return {**base, "type": kind, "paths": paths}


def _patch(patch: Any) -> dict[str, Any]:
    return {
        "type": "patch",
        "class": type(patch).__name__,
        "xy": _vertices(patch.get_path(), patch.get_patch_transform()),
        "colors": _colors([patch.get_facecolor()]),
        "label": str(patch.get_label()),
    }


def _image(im: Any) -> dict[str, Any]:
    cmap = im.get_cmap()
    return {
        "type": "image",
        "array": array(im.get_array(), image=True),
        "cmap": getattr(cmap, "name", None),
        "clim": [float(v) if v is not None else None for v in im.get_clim()],
        "extent": [float(v) for v in im.get_extent()],
    }


def _artists(ax: Any) -> tuple[list[dict[str, Any]], bool]:
    from matplotlib.container import BarContainer

    out: list[dict[str, Any]] = []
    in_bars: set[int] = set()
    for c in ax.containers:
        if isinstance(c, BarContainer):
            in_bars.update(id(p) for p in c.patches)
            out.append(_bars(c))
    out += [_line(line) for line in ax.lines]
    out += [_collection(c) for c in ax.collections]
    out += [_patch(p) for p in ax.patches if id(p) not in in_bars]
    out += [_image(im) for im in ax.images]
    return out[:MAX_ARTISTS], len(out) > MAX_ARTISTS


def _layers(ax: Any, base: Any) -> Any:
    """``base`` (the axes' pixels, float RGB, row 0 at the bottom) with each visible image layer drawn
    over it in draw order, as matplotlib resamples it (colormap, limits, norm, alpha applied)."""
    import numpy as np

    h, w = base.shape[:2]
    x0, y0 = round(ax.bbox.x0), round(ax.bbox.y0)
    for im in sorted((i for i in ax.images if i.get_visible()), key=lambda i: i.get_zorder()):
        rgba, left, bottom, _ = im.make_image(None, 1.0)
        if rgba is None or not rgba.size:
            continue
        c, r = round(left) - x0, round(bottom) - y0
        r0, c0, r1, c1 = max(r, 0), max(c, 0), min(r + rgba.shape[0], h), min(c + rgba.shape[1], w)
        if r1 > r0 and c1 > c0:
            layer = rgba[r0 - r : r1 - r, c0 - c : c1 - c].astype(np.float64) / 255.0
            alpha = layer[..., 3:]
            base[r0:r1, c0:c1] = layer[..., :3] * alpha + base[r0:r1, c0:c1] * (1.0 - alpha)
    return base


def shown(ax: Any, side: int = SHOWN_SIDE) -> dict[str, Any] | None:
    """The axes' image layers as shown, composited over its background at the figure's resolution
    (matplotlib's own ``make_image``), then block-averaged to at most ``side`` pixels a side: RGB
    integers 0-255, rows from the top.  None when the axes shows no image."""
    import numpy as np
    from matplotlib.colors import to_rgba

    if not any(i.get_visible() for i in ax.images):
        return None
    ax.apply_aspect()
    box = ax.bbox
    w, h = max(1, round(box.x1) - round(box.x0)), max(1, round(box.y1) - round(box.y0))
    if w * h > 25_000_000:
        return None
    under = np.asarray(to_rgba(ax.figure.get_facecolor()))
    face = np.asarray(to_rgba(ax.patch.get_facecolor()))
    back = under[:3] * under[3] + (1.0 - under[3])
    drawn = ax.axison and ax.get_frame_on() and ax.patch.get_visible()  # as Axes.draw decides
    back = face[:3] * face[3] + back * (1.0 - face[3]) if drawn else back
    pixels = _layers(ax, np.tile(back, (h, w, 1)))[::-1]
    small = np.rint(_block_means(pixels, side) * 255.0).astype(np.int64)
    return {"shape": list(small.shape), "data": small.ravel().tolist()}


def _shown_side(fig: Any) -> int:
    n = sum(1 for ax in fig.get_axes()[:MAX_AXES] if ax.images)
    return SHOWN_SIDE if n <= SHOWN_AXES else max(16, int(SHOWN_SIDE * math.sqrt(SHOWN_AXES / n)))


def _axis(axis: Any, lim: Any, scale: str) -> dict[str, Any]:
    lo, hi = sorted(float(v) for v in lim)
    slack = (hi - lo) * 1e-9
    locs = [float(v) for v in axis.get_majorticklocs() if lo - slack <= v <= hi + slack][:MAX_ARTISTS]
    try:
        labels = [str(t) for t in axis.get_major_formatter().format_ticks(locs)]
    except Exception:  # an exotic formatter: what the last draw showed
        labels = [t.get_text() for t in axis.get_majorticklabels()][: len(locs)]
    shown = axis.get_majorticklabels()
    rotation = float(shown[0].get_rotation()) if shown else 0.0
    return {"scale": scale, "lim": [float(v) for v in lim], "ticks": _numbers_list(locs),
            "ticklabels": labels, "rotation": rotation, "units": _units(axis)}  # fmt: skip


def _units(axis: Any) -> str | None:
    """``date`` (matplotlib's days since 1970), ``period:<freq>`` (pandas' period ordinals, as
    ``Series.plot`` draws a regular time series) or None."""
    get = getattr(axis, "get_converter", None)  # matplotlib >= 3.10; `.converter` warns there
    converter = get() if get is not None else getattr(axis, "converter", None)
    name = type(converter).__name__ if converter is not None else ""
    if name == "PeriodConverter":
        freq = getattr(axis.axes, "freq", None)
        return f"period:{getattr(freq, 'freqstr', freq)}"[:40] if freq is not None else None
    return "date" if "Date" in name else None


def _numbers_list(values: list[float]) -> list:
    import numpy as np

    return _numbers(np.asarray(values, dtype=np.float64))


def _legend(legend: Any) -> dict[str, Any] | None:
    if legend is None:
        return None
    return {"title": legend.get_title().get_text(), "entries": [t.get_text() for t in legend.get_texts()]}


def _axes(ax: Any, side: int = SHOWN_SIDE) -> dict[str, Any]:
    colorbar = getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"
    artists, truncated = _artists(ax)
    pos = ax.get_position()
    image = None if colorbar else _try(shown, ax, side)
    return {
        "kind": "colorbar" if colorbar else "axes",
        "name": str(ax.name),
        "position": [float(pos.x0), float(pos.y0), float(pos.width), float(pos.height)],
        "titles": [ax.get_title(loc) for loc in ("left", "center", "right")],
        "xlabel": ax.get_xlabel(),
        "ylabel": ax.get_ylabel(),
        "x": _axis(ax.xaxis, ax.get_xlim(), ax.get_xscale()),
        "y": _axis(ax.yaxis, ax.get_ylim(), ax.get_yscale()),
        "legend": _legend(ax.get_legend()),
        "artists": artists,
        "truncated": truncated,
        **({"shown": image} if image is not None else {}),
    }


def _try(func: Any, *args: Any) -> Any:
    """``func(*args)``, or None when it fails (a capture never fails for want of its shown image)."""
    try:
        return func(*args)
    except Exception:
        return None


def structure(fig: Any) -> dict[str, Any]:
    """What ``fig`` shows, as the JSON-able bundle the server grades (may raise)."""
    suptitle = getattr(fig, "_suptitle", None)
    axes = fig.get_axes()
    side = _shown_side(fig)
    return {
        "version": VERSION,
        "size": [float(v) for v in fig.get_size_inches()],
        "dpi": float(fig.dpi),
        "suptitle": suptitle.get_text() if suptitle is not None else "",
        "legends": [_legend(leg) for leg in fig.legends[:MAX_ARTISTS]],
        "axes": [_axes(ax, side) for ax in axes[:MAX_AXES]],
        "truncated": len(axes) > MAX_AXES,
    }


def capture(fig: Any) -> dict[str, Any] | None:
    """The formatter: the bundle, a small ``omitted`` note when too large, None on any failure."""
    try:
        if not is_figure(fig):
            return None
        bundle = structure(fig)
        size = len(json.dumps(bundle, allow_nan=False))
    except Exception:
        return None
    if size > MAX_BYTES:
        return {"version": VERSION, "omitted": "too large", "bytes": size}
    return bundle


def is_figure(obj: Any) -> bool:
    """A ``matplotlib.figure.Figure`` (or subclass), told by name: no matplotlib import."""
    return any(c.__module__ == "matplotlib.figure" and c.__name__ == "Figure" for c in type(obj).__mro__)


def register(ip: Any = None) -> bool:
    """Add the figure formatter to IPython's display formatter; False when there is none.

    The formatter recognises figures itself rather than through ``for_type_by_name``:
    IPython's ``select_figure_formats`` (run when the inline backend activates, at the
    first pyplot import) pops every formatter's ``Figure`` printer.
    """
    try:
        from IPython import get_ipython
        from IPython.core.formatters import BaseFormatter
        from traitlets import ObjectName, Unicode

        ip = ip or get_ipython()
        if ip is None:
            return False

        class FigureFormatter(BaseFormatter):
            format_type = Unicode(MIME)
            _return_type = (dict,)
            print_method = ObjectName("_repr_cibench_lab_figure_")

            def __call__(self, obj: Any) -> dict[str, Any] | None:
                return capture(obj) if self.enabled and is_figure(obj) else None

        ip.display_formatter.formatters[MIME] = FigureFormatter(parent=ip.display_formatter)
    except Exception:
        return False
    return True
