"""`vis` steps under the `fair` profile: SSIM on RGB with the aspect ratio kept.

Both images become float RGB in [0, 1] (grey expanded, alpha composited over
white), so RGBA vs RGB or grey vs colour compares pixels instead of failing.  The
prediction is padded with white to the reference's aspect ratio (centred) before
it is resized to the reference's size, so a wider figure is not squashed; no
8-bit truncation, so an identical image scores exactly 1.  SSIM's window shrinks
for small images (odd, ≥ 3); below 3 pixels, 1 − mean absolute difference.
"""

from __future__ import annotations

import numpy as np

from .images import ImageError, as_rgb, decode


def letterbox(img: np.ndarray, aspect: float) -> np.ndarray:
    """Pad ``img`` (h, w, 3) with white, centred, to width/height = ``aspect``."""
    h, w = img.shape[:2]
    if w / h > aspect:
        new_h, new_w = round(w / aspect), w
    else:
        new_h, new_w = h, round(h * aspect)
    if (new_h, new_w) == (h, w):
        return img
    out = np.ones((new_h, new_w, 3), dtype=img.dtype)
    top, left = (new_h - h) // 2, (new_w - w) // 2
    out[top : top + h, left : left + w] = img
    return out


def fair_ssim(pred_b64: str, target_b64: str) -> float:
    from skimage.metrics import structural_similarity
    from skimage.transform import resize

    if pred_b64 == target_b64:
        return 1.0
    ref = as_rgb(decode(target_b64))
    pred = as_rgb(decode(pred_b64))
    h, w = ref.shape[:2]
    if min(h, w) < 1 or min(pred.shape[:2]) < 1:
        raise ImageError("empty image")
    pred = letterbox(pred, w / h)
    if pred.shape[:2] != (h, w):
        pred = np.clip(resize(pred, (h, w), order=1, anti_aliasing=True), 0.0, 1.0)
    if min(h, w) < 3:
        return float(1.0 - np.abs(pred - ref).mean())
    win = min(7, min(h, w) if min(h, w) % 2 else min(h, w) - 1)
    value = structural_similarity(pred, ref, channel_axis=-1, data_range=1.0, win_size=win)
    return float(value)
