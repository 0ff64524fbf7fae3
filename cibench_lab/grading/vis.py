"""`vis` steps under the ``cibench`` profile: SSIM of the first image (CIBench's vis step).

Only the latest successful turn counts (the official loop stops there, scoring 0
when it has no image).  The prediction is resized to the reference's height and
width with scikit-image, scaled back to 8 bits by truncation, and compared with
``structural_similarity(..., channel_axis=-1)``; a channel mismatch (RGBA vs RGB,
grey vs colour) is an error the official code scores 0.  Image dimensions are
read from the PNG header before decoding (``images``), so a decompression bomb is
refused rather than inflated.
"""

from __future__ import annotations

import numpy as np

from .images import ImageError, TooLarge, decode
from .render import Rendered

__all__ = ["ImageError", "latest_image", "ssim", "vis_score"]


def ssim_channels(im1: np.ndarray, im2: np.ndarray, data_range: float, win: int = 7) -> float:
    """scikit-image's ``structural_similarity(im1, im2, channel_axis=-1)`` with its defaults
    (uniform 7-window, sample covariance, K1 .01, K2 .03), all channels in one pass.

    Same operations in the same order, so it agrees with scikit-image to ~1e-15
    (tests/grading/test_grading_robust.py checks it on random images) at a fraction of the
    cost.  Raises ValueError where scikit-image does (shapes differ, image < window).
    """
    from scipy.ndimage import uniform_filter

    if im1.shape != im2.shape:
        raise ValueError("input images must have the same dimensions")
    a = np.moveaxis(im1.astype(np.float64), -1, 0)
    b = np.moveaxis(im2.astype(np.float64), -1, 0)
    spatial = a.ndim - 1
    if spatial < 1 or any(n < win for n in a.shape[1:]):
        raise ValueError("win_size exceeds image extent")
    size = (1,) + (win,) * spatial
    stack = uniform_filter(np.stack([a, b, a * a, b * b, a * b]), size=(1, *size))
    ux, uy, uxx, uyy, uxy = stack
    n_points = win**spatial
    cov = n_points / (n_points - 1)
    vx, vy, vxy = cov * (uxx - ux * ux), cov * (uyy - uy * uy), cov * (uxy - ux * uy)
    c1, c2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
    s = ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux**2 + uy**2 + c1) * (vx + vy + c2))
    pad = (win - 1) // 2
    crop = (slice(None),) + (slice(pad, -pad),) * spatial
    return float(np.mean([ch.mean(dtype=np.float64) for ch in s[crop]]))


def ssim(pred_b64: str, target_b64: str) -> float:
    from skimage.transform import resize

    target = decode(target_b64)
    pred = decode(pred_b64)
    try:
        pred = (255 * resize(pred, target.shape[:2])).astype(np.uint8)
        return ssim_channels(pred, target, data_range=255.0)  # the uint8 prediction sets data_range
    except (ValueError, IndexError, TypeError) as err:
        raise ImageError(f"images not comparable ({err})") from None


def latest_image(rendered: list[Rendered]) -> tuple[bool, str | None]:
    """(has a successful turn, its first image)."""
    for turn in reversed(rendered):
        if turn.succeed:
            return True, (turn.images[0] if turn.images else None)
    return False, None


def vis_score(rendered: list[Rendered], target: str) -> tuple[float, str]:
    """Score and what was measured."""
    ran, img = latest_image(rendered)
    if img is None:
        return 0.0, "expected a figure; your output had none" if ran else "no successful run"
    try:
        value = ssim(img, target)
    except TooLarge:
        raise
    except ImageError as err:
        return 0.0, f"figure could not be compared: {err}"
    return value, f"plot SSIM {value:.2f}"
