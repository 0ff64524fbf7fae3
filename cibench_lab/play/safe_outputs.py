"""Outputs the server writes into a notebook: only what a browser shows without running anything.

A kernel's outputs are hostile input (DESIGN §4, the seam rule): a display of ``HTML('<script>…')``,
``Javascript(…)``, an SVG, a widget view or markdown runs, or may run, in whichever lab opens a
trusted notebook holding it.  Every output the server puts into a notebook — a benchmark's prior
turn (:mod:`cibench_lab.lab.setup`), and anything else it writes — goes through :func:`safe_outputs` first:

- ``display_data`` / ``execute_result``: only ``text/plain``, ``image/png`` and ``image/jpeg`` of
  the bundle (images as base64 text); a bundle left with none of them says in ``text/plain`` what
  was not shown; metadata only the kept images' width and height;
- ``stream``: its name (stdout or stderr) and text; ``error``: ename, evalue and traceback;
- anything else (an unknown output type, a malformed output) is left out.

:func:`sign_notebook` signs a notebook the server wrote only when every output in it is safe
(:func:`unsafe_cells`); otherwise it is left untrusted, and said in the log.  The browser keeps the
same rule for the oracle reference cells it runs (``src/notebook/safe.ts``).  Outputs of a
participant's own cells, run live in their lab, are not touched.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: The MIME types an output written by the server keeps.
SAFE_MIME = ("text/plain", "image/png", "image/jpeg")
_IMAGES = ("image/png", "image/jpeg")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_SIZE_KEYS = ("width", "height")
_NAMED = 3  # left-out MIME types named in the note, at most
_KINDS = ("stream", "error", "display_data", "execute_result")

log = logging.getLogger(__name__)


def _text(value: Any) -> str | None:
    """nbformat's multiline string (a string or a list of strings) as one string; None otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    return None


def _data(data: Any) -> dict[str, str]:
    """The bundle's safe part; a note in ``text/plain`` when that leaves nothing."""
    if not isinstance(data, dict):
        return {}
    kept: dict[str, str] = {}
    for mime in SAFE_MIME:
        text = _text(data.get(mime))
        if text is not None and (mime == "text/plain" or _BASE64.fullmatch(text)):
            kept[mime] = text
    if not kept and data:
        left = sorted(str(m)[:40] for m in data)
        more = ", …" if len(left) > _NAMED else ""
        kept["text/plain"] = f"[output not shown: {', '.join(left[:_NAMED])}{more}]"
    return kept


def _metadata(metadata: Any, data: dict[str, str]) -> dict[str, Any]:
    """The kept images' width and height, nothing else."""
    out: dict[str, Any] = {}
    if not isinstance(metadata, dict):
        return out
    for mime in _IMAGES:
        entry = metadata.get(mime)
        if mime in data and isinstance(entry, dict):
            size = {k: v for k, v in entry.items() if k in _SIZE_KEYS and isinstance(v, int | float)}
            if size:
                out[mime] = size
    return out


def safe_output(output: Any) -> dict[str, Any] | None:
    """One nbformat output kept to what a browser shows without running it (None: left out)."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name, text = output.get("name"), _text(output.get("text"))
        ok = name in ("stdout", "stderr") and text is not None
        return {"output_type": kind, "name": name, "text": text} if ok else None
    if kind == "error":
        trace = output.get("traceback")
        lines = [str(t) for t in trace] if isinstance(trace, list) else []
        fields = {"ename": str(output.get("ename", "")), "evalue": str(output.get("evalue", ""))}
        return {"output_type": kind, **fields, "traceback": lines}
    if kind in ("display_data", "execute_result"):
        data = _data(output.get("data"))
        out = {"output_type": kind, "data": data, "metadata": _metadata(output.get("metadata"), data)}
        if kind == "execute_result":
            count = output.get("execution_count")
            out["execution_count"] = count if isinstance(count, int) else None
        return out
    return None


def safe_outputs(outputs: Iterable[Any]) -> list[dict[str, Any]]:
    """The outputs kept to what a browser shows without running it, in order."""
    kept = (safe_output(o) for o in outputs)
    return [o for o in kept if o is not None]


def _runs(output: Any) -> bool:
    """Whether a browser could run something of this output: a MIME type not kept, or not an output."""
    if not isinstance(output, dict) or output.get("output_type") not in _KINDS:
        return True
    data = output.get("data", {})
    return not isinstance(data, dict) or any(mime not in SAFE_MIME for mime in data)


def unsafe_cells(nb: Any) -> list[int]:
    """The indexes of the notebook's code cells holding an output a browser could run."""
    cells = enumerate(nb.get("cells", []))
    return [i for i, c in cells if c.get("cell_type") == "code" and any(map(_runs, c.get("outputs", [])))]


def sign_notebook(notary: Any, nb: Any, path: Path) -> bool:
    """Trust ``nb``, the notebook the server wrote at ``path`` — its signature in ``notary``'s store
    (the server's contents manager's, so JupyterLab opens it trusted) — when every output in it is
    safe; otherwise leave it untrusted (logged).  The notebook as the server built it is signed,
    never the file read back (its folder is the kernel's).  Whether it was signed.  Call it on the
    thread that made the notary: its SQLite store is bound to that thread."""
    cells = unsafe_cells(nb)
    if cells:
        log.warning("cibench-lab: %s left untrusted: cells %s hold outputs a browser could run", path, cells)
        return False
    notary.sign(nb)
    return True
