"""Images graded by what is shown: an axes' image layers compared as they look, one rule for every size.

Where both axes show images (``imshow``, ``matshow``: matplotlib's ``AxesImage``) and both figures
carry the axes' ``shown`` raster — every image layer after its colormap, colour limits and alpha,
composited in draw order over the axes' background at the figure's resolution, then averaged
down to at most 64 pixels a side (``kernels/inkernel/figure_capture.py: shown``) — the images are one unit
of the axes' data, compared by :func:`alike`; the image layers themselves are not paired.  So a
red mask drawn as a masked array through a one-colour colormap matches the same mask drawn as a
hand-built RGBA layer, and ``vmin``/``vmax`` count the same on a 100-pixel and a 10-megapixel image.

**The rule.**  Both rasters are brought to the smaller one's size (area-averaged).  A pixel is
alike when each of its channels lies within :data:`GREY` grey levels (of 255) of the range of the
other raster's 3×3 neighbourhood around it — a one-pixel slack for resampling at another figure
size or dpi.  The images match when at least :data:`SHARE` of the pixels are alike, both ways.
Measured on photographs (scikit-image's camera, coins, astronaut, Hubble field): the same figure
at another size, aspect or dpi keeps ≥ 99.4 %; another colormap or a contrast change of 20 grey
levels keeps under 50 %; a red mask thresholded 30 grey levels off keeps ≤ 96.5 % (10 or 20 off
fails on coins, passes on camera, where few pixels lie in between).

A figure captured before shown images were (an old reference, an old turn) has image series but
no raster: its images are compared by their arrays, as before (:mod:`.plot`), and the badge says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .figure import Axes

#: Grey levels (of 255) a channel may differ by, beyond its neighbourhood's range.
GREY = 10
#: Share of pixels that must be alike, both ways.
SHARE = 0.99


@dataclass(frozen=True)
class ShownPair:
    """The two rasters of one axes pair: the turn's, the reference's."""

    pred: np.ndarray
    ref: np.ndarray

    def alike(self) -> float:
        return alike(self.pred, self.ref)


def has_images(ax: Axes) -> bool:
    return any(s.kind == "image" for s in ax.series)


def shown_pair(pred: Axes, ref: Axes) -> ShownPair | None:
    """Both rasters, when both axes show images and both carry what they show."""
    if not (has_images(pred) and has_images(ref)) or pred.shown is None or ref.shown is None:
        return None
    return ShownPair(pred.shown, ref.shown)


def without_images(ax: Axes) -> Axes:
    return replace(ax, series=tuple(s for s in ax.series if s.kind != "image"))


def fallback_note(pred: Axes, ref: Axes) -> str | None:
    """Why this pair's images are compared by their arrays, when they are."""
    if not (has_images(pred) and has_images(ref)):
        return None
    if ref.shown is None:
        return (
            "images compared by their arrays: the reference was recorded before shown images were "
            "captured (`tasks verify` records them)"
        )
    if pred.shown is None:
        return "images compared by their arrays: your figure carries no shown image"
    return None


def alike(pred: np.ndarray, ref: np.ndarray) -> float:
    """The share of pixels alike (:data:`GREY`, 3×3 neighbourhood), the smaller of both ways."""
    shape = (min(pred.shape[0], ref.shape[0]), min(pred.shape[1], ref.shape[1]), 3)
    p, r = _sized(pred, shape), _sized(ref, shape)
    return min(_within(p, r), _within(r, p))


def _sized(img: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    if img.shape == shape:
        return img.astype(np.float64)
    from skimage.transform import resize

    return resize(img.astype(np.float64), shape, order=1, anti_aliasing=True, preserve_range=True)


def _within(a: np.ndarray, b: np.ndarray) -> float:
    """The share of ``a``'s pixels within GREY of the range of ``b``'s 3×3 neighbourhood."""
    from scipy.ndimage import maximum_filter, minimum_filter

    lo = minimum_filter(b, size=(3, 3, 1), mode="nearest")
    hi = maximum_filter(b, size=(3, 3, 1), mode="nearest")
    return float(((a >= lo - GREY) & (a <= hi + GREY)).all(axis=-1).mean())
