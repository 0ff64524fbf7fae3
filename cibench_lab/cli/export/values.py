"""How recorded values become export values: times, grades, and a turn's outputs as text.

Images are never exported as bytes: a count and the sha256 of each image's decoded bytes.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
from typing import Any

from ...grading.profile import PROFILES
from ...grading.qwen.lab import QWEN_MEASURES, not_graded
from ...grading.summary import METRICS
from ...store import times
from ...tasks.plot import FIGURE_MIME

TEXT_MIME = "text/plain"


def iso(at: dt.datetime | None) -> str | None:
    """A time in the exports' ISO 8601 (UTC, always with microseconds, ``Z``); None stays None."""
    return times.iso(at, timespec="microseconds")


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def image_digest(mime: str, value: Any) -> str:
    """sha256 (hex) of an image's bytes: base64-decoded, or the text of an SVG."""
    if not isinstance(value, str):
        value = _text(value)
    raw: bytes
    if mime == "image/svg+xml":
        raw = value.encode()
    else:
        try:
            raw = base64.b64decode(value, validate=False)
        except (binascii.Error, ValueError):
            raw = value.encode()
    return hashlib.sha256(raw).hexdigest()


def output_text(outputs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A turn's outputs as the turns table holds them: ``stdout``, ``stderr``, ``result`` (the
    text of results and displays without an image), ``error_text`` (``ename: evalue``),
    ``images`` and ``image_sha256`` (space-separated, in output order)."""
    parts: dict[str, list[str]] = {"stdout": [], "stderr": [], "result": [], "error_text": []}
    digests: list[str] = []
    for out in outputs or []:
        kind = out.get("output_type")
        if kind == "stream":
            parts["stderr" if out.get("name") == "stderr" else "stdout"].append(_text(out.get("text")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data") or {}
            images = [image_digest(m, v) for m, v in data.items() if m.startswith("image/")]
            digests += images
            if not images and TEXT_MIME in data:
                parts["result"].append(_text(data[TEXT_MIME]))
        elif kind == "error":
            parts["error_text"].append(f"{out.get('ename', '')}: {out.get('evalue', '')}")
    text = {
        "stdout": "".join(parts["stdout"]),
        "stderr": "".join(parts["stderr"]),
        "result": "\n".join(parts["result"]),
        "error_text": "\n".join(parts["error_text"]),
    }
    return {
        **{k: v or None for k, v in text.items()},
        "images": len(digests),
        "image_sha256": " ".join(digests),
    }


def shown_outputs(outputs: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Outputs as the person saw them: the figure structure the kernel published beside a plot
    for the grader (``FIGURE_MIME``) is left out; everything else as recorded."""
    kept = []
    for out in outputs or []:
        data = out.get("data")
        if isinstance(data, dict) and FIGURE_MIME in data:
            data = {m: v for m, v in data.items() if m != FIGURE_MIME}
            if not data:
                continue
            out = {**out, "data": data}
        kept.append(out)
    return kept


def grade_columns(grades: dict[str, Any] | None, fields: tuple[str, ...]) -> dict[str, Any]:
    """``<profile>_<field>`` for every profile (None where the grade has no such profile); a grade
    not graded (``grading.qwen.lab.not_graded``) has no ``passed``: neither passed nor missed."""
    grades = grades or {}
    return {f"{p}_{f}": _field(grades.get(p), f) for p in PROFILES for f in fields}


def _field(grade: dict[str, Any] | None, name: str) -> Any:
    if name == "passed" and not_graded(grade):
        return None
    return (grade or {}).get(name)


def summary_columns(summary: dict[str, Any] | None) -> dict[str, Any]:
    """``<profile>_<metric>``: the attempt's summary (x100) per profile and CIBench metric, then
    ``<profile>_qwen_<measure>``: a Qwen task's own measures (None for a CIBench task)."""
    summary = summary or {}
    out = {f"{p}_{m}": (summary.get(p) or {}).get(m) for p in PROFILES for m in METRICS}
    for p in PROFILES:
        qwen = (summary.get(p) or {}).get("qwen") or {}
        out |= {f"{p}_qwen_{m}": qwen.get(m) for m in QWEN_MEASURES}
    return out


def summarized_detail(detail: dict[str, Any] | None) -> dict[str, Any]:
    """An event's detail with any recorded ``outputs`` (an oracle run's) replaced by their text."""
    detail = dict(detail or {})
    if isinstance(detail.get("outputs"), list):
        detail["outputs"] = output_text(detail["outputs"])
    return detail
