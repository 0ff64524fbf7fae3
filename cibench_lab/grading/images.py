"""PNG handling with bounds: dimensions from the header before any decoding.

A turn's PNG is untrusted.  ``png_size`` reads width and height from the IHDR
chunk (bytes 16-24) without decompressing anything, so a 20,000×20,000 image is
refused before a byte of pixel data is inflated.  Decoding happens only below
``MAX_PIXELS`` and results are cached by content, because a step's grade is
recomputed for its whole turn history at every new turn.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import re
import struct
from functools import lru_cache

import numpy as np

#: Largest image we decode (about 100 MB as RGBA).  Bigger ones are ungradable.
MAX_PIXELS = 25_000_000
#: PIL refuses (DecompressionBombError) above twice its MAX_IMAGE_PIXELS; so does the original.
PIL_BOMB = 2 * 89_478_485
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: 32 base64 characters encode the first 24 bytes: magic, IHDR, width and height.
_HEAD_B64 = re.compile(r"[A-Za-z0-9+/]{32}")


class ImageError(ValueError):
    """An image that cannot be compared; the message says why."""


class TooLarge(ImageError):
    """Beyond our decoding bounds: the grade says 'ungradable: <reason>'."""


def b64bytes(b64: str) -> bytes:
    """Decode like ``base64.b64decode`` (non-strict, as the original)."""
    try:
        return base64.b64decode(b64)
    except (binascii.Error, ValueError, TypeError) as err:
        raise ImageError(f"not base64 ({err.__class__.__name__})") from None


def png_size(raw: bytes) -> tuple[int, int]:
    """(width, height) from the PNG header, or ImageError."""
    if len(raw) < 24 or not raw.startswith(_PNG_MAGIC) or raw[12:16] != b"IHDR":
        raise ImageError("not a PNG")
    return struct.unpack(">II", raw[16:24])


def digest(b64: str) -> str:
    return hashlib.sha256(b64.encode("ascii", "replace")).hexdigest()


def png_resavable(b64: str) -> bool:
    """Would the original interpreter's ``PIL.Image.open(...).save(...)`` succeed?

    Images too large for us to check (between MAX_PIXELS and PIL's bomb limit)
    are assumed fine: the turn then stands, and a vis grade says it is ungradable.
    """
    return _resavable(b64)


@lru_cache(maxsize=512)
def _resavable(b64: str) -> bool:
    from PIL import Image

    try:
        raw = b64bytes(b64)
        try:
            w, h = png_size(raw)  # the header first: no PIL warning, no inflating
        except ImageError:
            w = h = 0  # not a PNG by its magic: PIL decides (it may read other formats)
        if w * h > MAX_PIXELS:
            return w * h <= PIL_BOMB
        img = Image.open(io.BytesIO(raw))
        if img.size[0] * img.size[1] > MAX_PIXELS:
            return img.size[0] * img.size[1] <= PIL_BOMB
        img.load()
    except Exception:  # anything PIL raises is the original's "unexpected error"
        return False
    return True


#: Decoded images up to this many pixels are cached (a typical plot is ~0.3 M).
CACHE_PIXELS = 4_000_000


def decode(b64: str) -> np.ndarray:
    """Pixels as PIL gives them (palette images expanded), within the bounds."""
    # base64 length bounds the compressed size, the PNG header the pixels: cheap first tests
    if len(b64) < CACHE_PIXELS and _head_pixels(b64) <= CACHE_PIXELS:
        arr = _cached(b64)
        if arr is not None:
            return arr
    return _decode(b64)


def _head_pixels(b64: str) -> int:
    """Width x height from a PNG header, read off the first 32 base64 characters; 0 when
    they are not plain base64 of a PNG (then decoding decides)."""
    head = b64[:32]
    if not _HEAD_B64.fullmatch(head):
        return 0
    try:
        w, h = png_size(base64.b64decode(head))
    except ImageError:
        return 0
    return w * h


@lru_cache(maxsize=32)
def _cached(b64: str) -> np.ndarray | None:
    arr = _decode(b64)
    return arr if arr.shape[0] * arr.shape[1] <= CACHE_PIXELS else None


def _decode(b64: str) -> np.ndarray:
    from PIL import Image

    raw = b64bytes(b64)
    try:
        w, h = png_size(raw)
    except ImageError:
        w = h = 0  # not a PNG: let PIL identify it (it may be another format)
    if w * h > MAX_PIXELS:
        raise TooLarge(f"image too large ({w}x{h} pixels; limit {MAX_PIXELS:,})")
    try:
        img: Image.Image = Image.open(io.BytesIO(raw))
        if img.size[0] * img.size[1] > MAX_PIXELS:
            raise TooLarge(f"image too large ({img.size[0]}x{img.size[1]} pixels)")
        if img.mode == "P":
            img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        arr = np.asarray(img)
    except ImageError:
        raise
    except Exception as err:
        raise ImageError(f"not a readable image ({err.__class__.__name__})") from None
    arr.setflags(write=False)
    return arr


def as_rgb(arr: np.ndarray) -> np.ndarray:
    """float RGB in [0, 1]: grey expanded, alpha composited over white."""
    a = arr.astype(np.float64)
    if arr.dtype == np.bool_:
        a = a * 255.0
    scale = 65535.0 if arr.dtype == np.uint16 else 255.0
    a = a / scale
    if a.ndim == 2:
        a = a[:, :, None]
    channels = a.shape[2]
    if channels in (2, 4):  # LA / RGBA
        alpha = a[:, :, -1:]
        a = a[:, :, :-1] * alpha + (1.0 - alpha)
    if a.shape[2] == 1:
        a = np.repeat(a, 3, axis=2)
    return np.clip(a[:, :, :3], 0.0, 1.0)
