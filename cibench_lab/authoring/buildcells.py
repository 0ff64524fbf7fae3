"""How ``build`` writes a step's run into its task notebook cell, and how it names a step that fails.

The built notebooks keep the conventions they were first recorded with: each
stream's text gathered into its first output (``\\r`` overwrites applied, stdout before an
adjacent stderr), the cell numbered by its place among the code cells run (the hidden start
code counts for nothing), an ``execute_result`` numbered as its cell; and a step that fails
is reported in the same words (:class:`CellExecutionError`, :class:`CellTimeoutError`,
:class:`DeadKernelError`).
"""

from __future__ import annotations

import re
from typing import Any

import nbformat

from ..kernels.execution import Execution

#: Everything up to a carriage return that more text on the same line overwrites.
_OVERWRITTEN = re.compile(r".*\r(?=[^\n])")


class StepFailure(Exception):
    """A reference step that did not run cleanly; the message names the cell."""


class CellExecutionError(StepFailure):
    """The step raised."""


class CellTimeoutError(StepFailure):
    """The step ran past the timeout (the kernel was interrupted)."""


class DeadKernelError(StepFailure):
    """The kernel died during the step."""


class OutputTruncatedError(StepFailure):
    """The step showed more output than a turn keeps."""


def gathered(outputs: list[dict[str, Any]]) -> list[nbformat.NotebookNode]:
    """``outputs`` with each stream's text in its first output, ``\\r`` overwrites applied and a
    stdout output moved before the stderr output right before it (streams are asynchronous)."""
    kept: list[nbformat.NotebookNode] = []
    streams: dict[str, nbformat.NotebookNode] = {}
    for out in map(nbformat.from_dict, outputs):
        if out.get("output_type") != "stream":
            kept.append(out)
        elif out.get("name") in streams:
            streams[out["name"]]["text"] += out["text"]
        else:
            streams[out["name"]] = out
            kept.append(out)
    for out in streams.values():
        out["text"] = _OVERWRITTEN.sub("", out["text"])
    for i in range(len(kept) - 1):
        if _stream(kept[i], "stderr") and _stream(kept[i + 1], "stdout"):
            kept[i], kept[i + 1] = kept[i + 1], kept[i]
    return kept


def _stream(out: dict[str, Any], name: str) -> bool:
    return out.get("output_type") == "stream" and out.get("name") == name


def record(cell: nbformat.NotebookNode, ex: Execution, number: int) -> None:
    """Write the run ``ex`` into code ``cell``, the ``number``-th code cell run."""
    cell.execution_count = number
    cell.outputs = gathered(ex.outputs)
    for out in cell.outputs:
        if out.get("output_type") == "execute_result":
            out["execution_count"] = number


def raise_failure(cell: nbformat.NotebookNode, ex: Execution, timeout: float) -> None:
    """Raise the :class:`StepFailure` of ``cell``'s run ``ex`` (recorded by :func:`record`), if any."""
    if ex.status == "timeout":
        raise CellTimeoutError(
            f"A cell timed out while it was being executed, after {timeout} seconds.\n"
            "The message was: Cell execution timed out.\n"
            f"Here is a preview of the cell contents:\n{_RULE}-\n{_preview(cell.source)}\n{_RULE}-\n"
        )
    if ex.status == "dead":
        raise DeadKernelError("Kernel died")
    if ex.error:
        raise CellExecutionError(_error_text(cell))
    if ex.truncated:
        raise OutputTruncatedError("the step shows more output than a turn keeps")


_RULE = "-" * 18


def _preview(source: str) -> str:
    lines = source.strip().split("\n")
    return source if len(lines) < 11 else "\n".join([*lines[:5], "...", *lines[-5:]])


def _error_text(cell: nbformat.NotebookNode) -> str:
    """The cell, what it printed and its traceback."""
    outputs = [o for o in cell.outputs if o.get("output_type") == "stream"]
    streams = [f"----- {o['name']} -----\n{o['text'].rstrip()}" for o in outputs]
    printed = "\n".join(["", *streams, _RULE]) if streams else ""
    error: dict[str, Any] = next((o for o in cell.outputs if o.get("output_type") == "error"), {})
    traceback = "\n".join(error.get("traceback") or [])
    return (
        f"An error occurred while executing the following cell:\n{_RULE}\n{cell.source}\n{_RULE}\n"
        f"{printed}\n\n{traceback}\n"
    )
