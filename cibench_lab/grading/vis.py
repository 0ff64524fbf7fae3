"""`vis` steps: SSIM of the first image against the reference (CIBench's vis step).

Only the latest successful turn counts (the official loop stops there, scoring 0
when it has no image).  The prediction is resized to the reference's height and
width with scikit-image, scaled back to 8 bits by truncation, and compared with
``structural_similarity(..., channel_axis=-1)``; a channel mismatch (RGBA vs RGB,
grey vs colour) is an error the official code scores 0.  Image dimensions are
read from the PNG header before decoding, so a decompression bomb is refused.
"""

from __future__ import annotations

import base64
import binascii
import io

import numpy as np

from .render import Rendered

MAX_PIXELS = 40_000_000


class ImageError(ValueError):
    pass


def decode_png(b64: str) -> np.ndarray:
    from PIL import Image

    try:
        raw = base64.b64decode(b64)
        img = Image.open(io.BytesIO(raw))
    except (binascii.Error, ValueError, OSError) as err:
        raise ImageError(f"not a readable image ({err.__class__.__name__})") from None
    w, h = img.size
    if w * h > MAX_PIXELS:
        raise ImageError(f"image too large ({w}x{h})")
    if img.mode == "P":
        img = img.convert("RGBA" if "transparency" in img.info else "RGB")
    try:
        return np.asarray(img)
    except OSError as err:
        raise ImageError(f"broken image ({err})") from None


def ssim(pred_b64: str, target_b64: str) -> float:
    from skimage.metrics import structural_similarity
    from skimage.transform import resize

    target = decode_png(target_b64)
    pred = decode_png(pred_b64)
    pred = (255 * resize(pred, target.shape[:2])).astype(np.uint8)
    try:
        return float(structural_similarity(pred, target, channel_axis=-1))
    except ValueError as err:
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
    except ImageError as err:
        return 0.0, f"figure could not be compared: {err}"
    return value, f"plot SSIM {value:.2f}"
