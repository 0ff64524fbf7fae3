"""Outputs rendered the way CIBench's interpreter shows them to the evaluator.

OpenCompass's ``IPythonInterpreter`` turns each IOPub output message into a
fenced block labelled with its type (``stdout``, ``stderr``, ``execute_result``,
``display_data``, ``error``), collects PNGs separately as image links, and trims
the text to 1,024 characters (head + ``......`` + tail) before anything is
scored.  The ``cibench`` profile scores that rendering, so we rebuild it from the
nbformat outputs we captured (one output per IOPub message, but a stream's consecutive
chunks are one output: the kernel's flush timing never splits a block).  Quirks kept:

* a ``display_data`` with a PNG contributes the image only (its ``text/plain``,
  e.g. ``<Figure ...>``, is dropped); an ``execute_result`` keeps both;
* ANSI escapes are stripped from tracebacks only, never from streams;
* a PNG the interpreter could not re-save (broken, or a decompression bomb by
  PIL's limit) ends the turn as failed with "unexpected error", labelled with
  the message type — the original's ``except Exception`` path;
* a timeout (or a dead kernel) reads "Timeout. No response after None seconds."
  (model code gets no timeout argument, hence "None"); the KeyboardInterrupt our
  interrupt provokes is not shown, as the original drains it at the next call.

Built from pieces, so a 100 MB stream costs one pass, never a copy per message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .images import png_resavable

TRIM = 1024
ELLIPSIS = "......"
NO_OUTPUT = "The code is succeed without any outputs."
TIMEOUT_TEXT = "Timeout. No response after None seconds."
UNEXPECTED = "The code interpreter encountered an unexpected error."
#: An ANSI escape sequence (stripped from tracebacks here, from all text by the fair rules).
ANSI = re.compile(r"(?:\x1B[@-_]|[\x80-\x9F])[0-?]*[ -/]*[@-~]")


@dataclass
class Rendered:
    """One turn as the evaluator sees it."""

    text: str  # the interpreter's result text ('' when the turn failed)
    images: list[str] = field(default_factory=list)  # base64 PNGs, in order
    succeed: bool = True
    errmsg: str = ""  # the trimmed text of a failed turn (the model sees repr() of it)
    tool: bool = True  # False for a reply without an interpreter action (lagent's NoAction)


def join_text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def _block(out: dict[str, Any]) -> tuple[str, str, str | None]:
    """(label, text, png) for one output, as the interpreter labels it."""
    kind = out.get("output_type")
    data = out.get("data") or {}
    png = join_text(data["image/png"]) if "image/png" in data else None
    if kind == "stream":
        return str(out.get("name", "stdout")), join_text(out.get("text")), None
    if kind == "execute_result":
        return "execute_result", join_text(data.get("text/plain", "")), png
    if kind == "display_data":
        return "display_data", "" if png else join_text(data.get("text/plain", "")), png
    if kind == "error":
        text = ANSI.sub("", "\n".join(str(t) for t in out.get("traceback") or []))
        return "error", TIMEOUT_TEXT if "M6_CODE_INTERPRETER_TIMEOUT" in text else text, None
    return "", "", None


def trim(text: str, limit: int = TRIM) -> str:
    if limit and len(text) > limit:
        half = int((limit - len(ELLIPSIS)) / 2)
        return text[:half] + ELLIPSIS + text[-half:]
    return text


def _trim_pieces(pieces: list[str], limit: int = TRIM) -> str:
    """``trim(''.join(pieces))`` without joining more than the head and tail."""
    total = sum(len(p) for p in pieces)
    if total <= limit:
        return "".join(pieces)
    half = int((limit - len(ELLIPSIS)) / 2)
    head, n = [], 0
    for p in pieces:
        head.append(p[: half - n])
        n += len(head[-1])
        if n >= half:
            break
    tail, n = [], 0
    for p in reversed(pieces):
        tail.append(p[max(0, len(p) - (half - n)) :])
        n += len(tail[-1])
        if n >= half:
            break
    return "".join(head) + ELLIPSIS + "".join(reversed(tail))


def _drop_interrupt(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    outs = list(outputs)
    while outs and outs[-1].get("output_type") == "error" and outs[-1].get("ename") == "KeyboardInterrupt":
        outs.pop()
    return outs


def render(outputs: list[dict[str, Any]], error: bool, status: str = "ok") -> Rendered:
    """Render a turn's outputs; ``error`` marks a turn that raised (or timed out)."""
    if status == "no_action":
        return Rendered(text="", succeed=False, errmsg="Please follow the format", tool=False)
    pieces: list[str] = []
    images: list[str] = []
    failed = bool(error) or status != "ok"
    timed_out = status in ("timeout", "dead")
    for out in _drop_interrupt(outputs) if timed_out else outputs:
        label, text, png = _block(out)
        failed = failed or label == "error"
        if png is not None and not png_resavable(png):
            pieces.append(f"\n\n{label}:\n\n```\n{UNEXPECTED}\n```")
            failed, timed_out = True, False
            break
        if text:
            pieces.append(f"\n\n{label}:\n\n```\n{text}\n```")
        if png is not None:
            images.append(png)
    if timed_out:
        pieces.append(f"\n\nerror:\n\n```\n{TIMEOUT_TEXT}\n```")
    result = _trim_pieces(pieces).lstrip("\n")
    if failed:
        return Rendered(text="", images=images, succeed=False, errmsg=result)
    return Rendered(text=result or NO_OUTPUT, images=images, succeed=True)
