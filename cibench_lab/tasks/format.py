"""CIBench's notebook format: one notebook -> one Task, by the official rules.

The parsing follows OpenCompass's loader (``opencompass/datasets/cibench.py``,
``load_experiment``) rule for rule — the Thought split, the ``modules`` suffix,
how the reference output is chosen — but refuses what that loader would
silently mis-read (cells out of order, two images in one reference cell,
``step_types`` of the wrong length), naming the file and the cell.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .errors import TaskError
from .meta import read_meta
from .model import DETECTED_KINDS, METRIC_KINDS, ReferenceOutput, Step, Task

THOUGHT_MARK = "\n\nThought: "


def _source(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def split_thought(markdown: str) -> tuple[str, str]:
    """Instruction and Thought, as the official loader splits them.

    Exactly one ``\\n\\nThought: `` separates them; with none (or several) the
    whole text is the instruction and the thought is a single space.
    """
    parts = markdown.strip().split(THOUGHT_MARK)
    if len(parts) == 2:
        return parts[0], parts[1]
    return markdown.strip(), " "


def user_prompt(instruction: str, modules: tuple[str, ...], chinese: bool) -> str:
    """The user message a CIBench-protocol model receives for one step (byte-exact)."""
    text = instruction
    if modules:
        if chinese:
            text += f"请用 {' 和 '.join(modules)} 模块."
        else:
            text += f"Please use {' and '.join(modules)} modules."
    return text.strip() + "\n"


def reference_output(outputs: list[dict[str, Any]], path: str, cell: int) -> ReferenceOutput:
    """The step's reference: the PNG of a display_data, else the last stdout/result text."""
    images = [o for o in outputs if o.get("output_type") == "display_data"]
    pngs = [o for o in images if "image/png" in o.get("data", {})]
    if pngs:
        if len(images) > 1:
            raise TaskError(
                path,
                "reference cell has more than one display_data output "
                "(a vis step must show exactly one image)",
                cell,
            )
        return ReferenceOutput("vis", _join(pngs[0]["data"]["image/png"]).strip())
    for out in reversed(outputs):
        if out.get("output_type") == "stream" and out.get("name") == "stdout":
            return ReferenceOutput("general", _join(out.get("text", "")))
        if out.get("output_type") == "execute_result":
            return ReferenceOutput("general", _join(out.get("data", {}).get("text/plain", "")))
    return ReferenceOutput("exec", None)


def _join(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _pairs(cells: list[Any], path: str) -> list[tuple[dict, dict]]:
    if not cells:
        raise TaskError(path, "notebook has no cells")
    pairs = []
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or "cell_type" not in cell:
            raise TaskError(path, "not a notebook cell (no cell_type)", i)
        want = "markdown" if i % 2 == 0 else "code"
        if cell["cell_type"] != want:
            raise TaskError(
                path,
                f"expected a {want} cell (instruction and reference code "
                f"must alternate), found {cell['cell_type']}",
                i,
            )
        if want == "code":
            pairs.append((cells[i - 1], cell))
    if len(cells) % 2:
        raise TaskError(path, "last instruction has no reference code cell", len(cells) - 1)
    return pairs


def _step_kinds(meta: dict, n: int, path: str) -> list[str] | None:
    kinds = meta.get("step_types")
    if kinds is None:
        return None
    if not isinstance(kinds, list) or len(kinds) != n:
        raise TaskError(
            path,
            f"metadata.step_types has {len(kinds) if isinstance(kinds, list) else 'no list of'} "
            f"entries for {n} steps",
        )
    for k in kinds:
        if k not in METRIC_KINDS:
            raise TaskError(
                path, f"metadata.step_types: unknown kind {k!r} (expected one of {', '.join(METRIC_KINDS)})"
            )
    return kinds


def _modules(meta: dict, n: int, path: str) -> list[tuple[str, ...]]:
    mods = meta.get("modules") or []
    if not mods:
        return [()] * n
    if not isinstance(mods, list) or len(mods) != n or not all(isinstance(m, str) for m in mods):
        raise TaskError(path, f"metadata.modules must be {n} strings, one per step")
    return [tuple(part.strip() for part in m.split("&")) for m in mods]


def parse_notebook(raw: bytes, path: Path, task_id: str, datasources: Path | None) -> Task:
    """Parse one notebook's bytes into a Task, or raise TaskError naming file and cell."""
    name = str(path)
    try:
        nb = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise TaskError(name, f"not valid notebook JSON ({err})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TaskError(name, "not a notebook (no cells list)")
    meta = nb.get("metadata") or {}
    if not isinstance(meta, dict):
        raise TaskError(name, "notebook metadata is not an object")
    pairs = _pairs(nb["cells"], name)
    kinds, modules = _step_kinds(meta, len(pairs), name), _modules(meta, len(pairs), name)
    if modules[0] and kinds is None:
        raise TaskError(name, "metadata.modules needs metadata.step_types of the same length")
    split, lib, stem = task_id.split("/")
    extra = read_meta(meta, name, split, lib, stem)
    chinese = "chinese" in name if extra.get("language_from_path", True) else extra["language"] == "zh"
    steps = tuple(_step(i, md, code, kinds, modules, chinese, name) for i, (md, code) in enumerate(pairs))
    return Task(
        id=task_id,
        split=split,
        lib=lib,
        stem=stem,
        path=path,
        datasources=datasources,
        title=extra["title"],
        intro=extra["intro"],
        language=extra["language"],
        libraries=tuple(extra["libraries"]),
        data_files=tuple(extra["data_files"]),
        steps=steps,
        content_hash=hashlib.sha256(raw).hexdigest(),
        metadata=meta,
    )


def _step(i, md, code, kinds, modules, chinese, name) -> Step:
    instruction, thought = split_thought(_source(md))
    outputs = code.get("outputs") or []
    if not isinstance(outputs, list):
        raise TaskError(name, "code cell outputs is not a list", 2 * i + 1)
    ref = reference_output(outputs, name, 2 * i + 1)
    kind = kinds[i] if kinds else ref.kind
    assert kind in METRIC_KINDS + DETECTED_KINDS
    return Step(
        index=i,
        instruction=instruction,
        thought=thought,
        code=_source(code),
        outputs=tuple(outputs),
        reference=ref,
        kind=kind,
        modules=modules[i],
        prompt=user_prompt(instruction, modules[i], chinese),
    )
