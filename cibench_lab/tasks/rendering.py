"""How a task's plots are rendered: the matplotlib settings its references were made with.

SSIM punishes any difference between how a reference and a turn were rendered, and
IPython's inline backend changed its defaults across versions: up to matplotlib-inline
0.1.3 (2021) it forced ``InlineBackend.rc`` (72 dpi, a 6×4 in figure, a transparent
figure face and edge, 10 pt font, subplot bottom 0.125); from 0.1.4 on it sets nothing,
so a stock kernel of today renders with matplotlib's own defaults (100 dpi, 6.4×4.8 in,
white).  A :class:`Rendering` is one of those settings: a named preset plus the figure
dpi.  Every kernel that plays a task gets its task's rendering as rcParams
(``kernels/spec.py: start_code``).

Where a task's rendering comes from (:class:`TaskRendering`, ``basis``):

- ``declared``: ``metadata.cibench_lab.rendering`` in the notebook (tasks we write), or
  the task directory's default (the built-in set: ``cibench_lab.builtin.RENDERING``);
- ``sidecar``: ``<task dir>/.cibench-lab/rendering.json`` (:mod:`.sidecar`), written by
  ``tasks import`` and confirmed by ``tasks verify`` — notebooks we must not change;
- ``pHYs``: detected from the reference PNGs on load (:func:`detect`): matplotlib writes
  the dpi into the ``pHYs`` chunk and ``Software: Matplotlib version…`` into a ``tEXt``
  chunk, and the first pixel of a ``bbox_inches='tight'`` PNG is the figure face (its
  alpha tells a transparent face).  Only the chunks before the pixels and the first
  pixel row are read: no image is decoded;
- ``assumed``: no matplotlib PNG to read (no vis step, or PNGs made by PIL/OpenCV): ``stock``.

Only ``declared`` and verified entries need no ``tasks verify``.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

#: The presets: their figure dpi and the rcParams they set besides it.
PRESETS: dict[str, tuple[float, dict[str, object]]] = {
    # matplotlib's own defaults: a stock IPython kernel since matplotlib-inline 0.1.4
    "stock": (100.0, {}),
    # matplotlib-inline <= 0.1.3's InlineBackend.rc (the CIBench era's notebooks)
    "legacy-inline": (
        72.0,
        {
            "figure.figsize": (6.0, 4.0),
            "figure.facecolor": (1, 1, 1, 0),
            "figure.edgecolor": (1, 1, 1, 0),
            "font.size": 10,
            "figure.subplot.bottom": 0.125,
        },
    ),
}
BASES = ("declared", "sidecar", "pHYs", "assumed")
MAX_DPI = 1200.0


class RenderingError(ValueError):
    """A rendering spec or record that cannot be read; the message says what is wrong."""


@dataclass(frozen=True)
class Rendering:
    """A preset (``stock``, ``legacy-inline``) at a figure dpi (default: the preset's)."""

    preset: str = "stock"
    dpi: float = 100.0

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise RenderingError(
                f"unknown rendering preset {self.preset!r} (expected one of {', '.join(PRESETS)})"
            )
        if not 0 < self.dpi <= MAX_DPI:
            raise RenderingError(f"rendering dpi {self.dpi:g} out of range (0, {MAX_DPI:g}]")

    @classmethod
    def of(cls, preset: str, dpi: float | None = None) -> Rendering:
        """``preset`` at ``dpi``, or at its own dpi when None."""
        own = PRESETS[preset][0] if preset in PRESETS else 100.0  # an unknown preset: refused below
        return cls(preset, float(own if dpi is None else dpi))

    @property
    def name(self) -> str:
        """``preset`` at the preset's own dpi, else ``preset:dpi`` (the spec :func:`parse` reads)."""
        return self.preset if self.dpi == PRESETS[self.preset][0] else f"{self.preset}:{self.dpi:g}"

    @property
    def transparent(self) -> bool:
        return PRESETS[self.preset][1].get("figure.facecolor") == (1, 1, 1, 0)

    def rc(self) -> dict[str, object]:
        """The rcParams a kernel sets; savefig follows the figure dpi (as the inline backend saves)."""
        return {**PRESETS[self.preset][1], "figure.dpi": self.dpi, "savefig.dpi": "figure"}

    def record(self) -> dict[str, object]:
        """The stored form (``metadata.cibench_lab.rendering``, a sidecar entry)."""
        return {"preset": self.preset, "dpi": self.dpi}


def parse(spec: str) -> Rendering:
    """``stock``, ``legacy-inline``, ``stock:72`` (a preset at another dpi) or a dpi (``stock`` at it)."""
    text = spec.strip()
    preset, _, dpi = text.rpartition(":") if ":" in text else ("", "", text)
    if not preset and dpi in PRESETS:
        return Rendering.of(dpi)
    try:
        value = float(dpi)
    except ValueError:
        raise RenderingError(
            f"rendering {spec!r}: expected a preset ({', '.join(PRESETS)}), PRESET:DPI or a dpi"
        ) from None
    return Rendering.of(preset or "stock", value)


def from_record(record: object, where: str) -> Rendering:
    """A stored ``{"preset", "dpi"}`` object; RenderingError names ``where``."""
    if not isinstance(record, dict) or not isinstance(record.get("preset"), str):
        raise RenderingError(f"{where}: expected an object with a preset name")
    dpi = record.get("dpi")
    if dpi is not None and (isinstance(dpi, bool) or not isinstance(dpi, (int, float))):
        raise RenderingError(f"{where}.dpi: expected a number")
    try:
        return Rendering.of(record["preset"], dpi)
    except RenderingError as err:
        raise RenderingError(f"{where}: {err}") from None


#: What the built-in tasks and tasks we write were rendered with (the `cibench-lab` kernel
#: forced 72 dpi, matplotlib's defaults otherwise).
STOCK_72 = Rendering("stock", 72.0)


@dataclass(frozen=True)
class TaskRendering:
    """A task's rendering and what it rests on (``basis``: one of :data:`BASES`)."""

    rendering: Rendering = Rendering()
    basis: str = "assumed"
    verified: bool = False  # `tasks verify` re-ran the references under it without drift
    detail: str = ""

    @property
    def needs_verify(self) -> bool:
        return self.basis != "declared" and not self.verified

    def describe(self) -> str:
        how = {
            "declared": "declared",
            "sidecar": "recorded",
            "pHYs": "detected from the PNGs' pHYs",
            "assumed": "assumed",
        }[self.basis]
        state = ", confirmed by verify" if self.verified else ""
        return f"{self.rendering.name} ({how}{state}{'; ' + self.detail if self.detail else ''})"


# --------------------------------------------------------------------------- PNG chunks


@dataclass(frozen=True)
class PngFacts:
    """What a PNG's first chunks say about how it was made."""

    dpi: float | None  # from pHYs (pixels per metre), None when absent or not in metres
    software: str | None  # the tEXt/iTXt ``Software`` value
    transparent_corner: bool | None  # the first pixel's alpha is 0 (None: not readable cheaply)

    @property
    def by_matplotlib(self) -> bool:
        return (self.software or "").lower().startswith("matplotlib")  # "matplotlib version…" before 3.x

    @property
    def version(self) -> str:
        """The matplotlib version in ``Software`` ("Matplotlib version3.8.0, https://…")."""
        text = (self.software or "")[len("matplotlib version") :] if self.by_matplotlib else ""
        return text.split(",")[0].strip()


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PREFIX_CHARS = 1 << 14  # base64 characters read first; the whole image only if its chunks run past


def png_facts(b64: str) -> PngFacts | None:
    """Facts about a base64 PNG from its chunks before the pixels; None when it is no PNG."""
    compact = "".join(b64[: _PREFIX_CHARS * 2].split())
    for text in (compact[: _PREFIX_CHARS - _PREFIX_CHARS % 4], "".join(b64.split())):
        try:
            raw = base64.b64decode(text[: len(text) - len(text) % 4])
        except (binascii.Error, ValueError):
            return None
        if not raw.startswith(PNG_SIGNATURE):
            return None
        facts = _read_chunks(raw)
        if facts is not None:
            return facts
    return None


def _read_chunks(raw: bytes) -> PngFacts | None:
    """None when ``raw`` ends before the first pixel row could be read (read more)."""
    pos, dpi, software, header = len(PNG_SIGNATURE), None, None, None
    while pos + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[pos : pos + 8])
        body = raw[pos + 8 : pos + 8 + length]
        if kind == b"IHDR" and len(body) == 13:
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"pHYs" and len(body) == 9:
            x, _, unit = struct.unpack(">IIB", body)
            dpi = round(x * 0.0254, 1) if unit == 1 else None
        elif kind in (b"tEXt", b"iTXt") and body.startswith(b"Software\x00"):
            software = body.split(b"\x00")[-1].decode("latin-1", "replace")
        elif kind == b"IDAT":
            complete, corner = _corner_alpha_zero(header, raw[pos + 8 :])
            return PngFacts(dpi, software, corner) if complete else None
        elif kind == b"IEND":
            break
        pos += 12 + length
    return None if pos + 8 > len(raw) else PngFacts(dpi, software, None)


def _corner_alpha_zero(header: tuple | None, idat: bytes) -> tuple[bool, bool | None]:
    """(read to the end, whether pixel (0, 0) is fully transparent): 8-bit RGBA (matplotlib's
    PNGs) only; (False, None) when ``idat`` is cut before that pixel (read more).

    Every PNG filter leaves the first pixel of the first row as stored (its left and upper
    neighbours are zero), so the first few decompressed bytes tell it."""
    if header is None or header[2] != 8 or header[3] != 6 or header[6] != 0:
        return True, None
    try:
        start = zlib.decompressobj().decompress(idat, 5)
    except zlib.error:
        return False, None  # the IDAT chunk is cut where our prefix ends
    return (False, None) if len(start) < 5 else (True, start[4] == 0)


# --------------------------------------------------------------------------- detection


def detect(images: Iterable[str]) -> TaskRendering:
    """A task's rendering from its reference PNGs (base64): the commonest matplotlib dpi, and a
    transparent face (→ ``legacy-inline``) or not (→ ``stock``); ``assumed`` without one."""
    facts = [f for f in (png_facts(b64) for b64 in images) if f is not None and f.by_matplotlib]
    dpis = Counter(f.dpi for f in facts if f.dpi is not None)
    if not dpis:
        why = "no matplotlib PNG among the references" if not facts else "no pHYs chunk"
        return TaskRendering(Rendering(), "assumed", detail=why)
    dpi, count = dpis.most_common(1)[0]
    transparent = Counter(f.transparent_corner for f in facts if f.dpi == dpi).most_common(1)[0][0]
    preset = "legacy-inline" if transparent else "stock"
    versions = sorted({f.version for f in facts})
    detail = f"{count} of {len(facts)} PNGs at {dpi:g} dpi, matplotlib {', '.join(versions)}"
    return TaskRendering(Rendering.of(preset, dpi), "pHYs", detail=detail)


def candidates(current: Rendering) -> list[Rendering]:
    """What ``tasks verify`` tries when ``current`` drifts: the other preset at the same dpi, then
    each preset at its own dpi."""
    seen, out = {current}, []
    for r in [Rendering.of(p, current.dpi) for p in PRESETS] + [Rendering.of(p) for p in PRESETS]:
        if r not in seen:
            seen.add(r)
            out.append(r)
    return out
