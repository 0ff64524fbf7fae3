"""Outputs rendered the way CIBench's interpreter shows them to the evaluator.

OpenCompass's ``IPythonInterpreter`` turns each IOPub output message into a
fenced block labelled with its type (``stdout``, ``stderr``, ``execute_result``,
``display_data``, ``error``), collects PNGs separately as image links, and trims
the text to 1,024 characters (head + ``......`` + tail) before anything is
scored.  The ``cibench`` profile scores that rendering, so we rebuild it from the
nbformat outputs we captured (one output per IOPub message).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

TRIM = 1024
ELLIPSIS = "......"
NO_OUTPUT = "The code is succeed without any outputs."
_ANSI = re.compile(r"(?:\x1B[@-_]|[\x80-\x9F])[0-?]*[ -/]*[@-~]")


@dataclass
class Rendered:
    """One turn as the evaluator sees it."""

    text: str  # the interpreter's result text ('' when the turn failed)
    images: list[str] = field(default_factory=list)  # base64 PNGs, in order
    succeed: bool = True
    errmsg: str = ""  # the trimmed text of a failed turn


def _join(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _block(out: dict[str, Any]) -> tuple[str, str, str | None]:
    """(label, text, png) for one output, as the interpreter labels it."""
    kind = out.get("output_type")
    data = out.get("data") or {}
    png = _join(data["image/png"]) if "image/png" in data else None
    if kind == "stream":
        return out.get("name", "stdout"), _join(out.get("text")), None
    if kind == "execute_result":
        return "execute_result", _join(data.get("text/plain", "")), png
    if kind == "display_data":
        return "display_data", "" if png else _join(data.get("text/plain", "")), png
    if kind == "error":
        return "error", _ANSI.sub("", "\n".join(out.get("traceback") or [])), None
    return "", "", None


def trim(text: str, limit: int = TRIM) -> str:
    if limit and len(text) > limit:
        half = int((limit - len(ELLIPSIS)) / 2)
        return text[:half] + ELLIPSIS + text[-half:]
    return text


def render(outputs: list[dict[str, Any]], error: bool, status: str = "ok") -> Rendered:
    """Render a turn's outputs; ``error`` marks a turn that raised (or timed out)."""
    result, images = "", []
    for out in outputs:
        label, text, png = _block(out)
        if text:
            result += f"\n\n{label}:\n\n```\n{text}\n```"
        if png:
            images.append(png)
    if status in ("timeout", "dead"):
        text = "The code interpreter encountered an unexpected error."
        result += f"\n\nerror:\n\n```\n{text}\n```"
    result = trim(result).lstrip("\n")
    if error:
        return Rendered(text="", images=images, succeed=False, errmsg=result or "error")
    return Rendered(text=result or NO_OUTPUT, images=images, succeed=True)
