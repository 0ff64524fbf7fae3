"""CIBench's notebook format: one notebook -> one Task, by the official rules.

The parsing follows OpenCompass's loader (``opencompass/datasets/cibench.py``,
``load_experiment``) rule for rule — the Thought split, the ``modules`` suffix,
how the reference output is chosen — but refuses what that loader would
silently mis-read or crash on (cells out of order, a second image in one
reference cell, ``step_types`` of the wrong length, malformed outputs), naming
the file and the cell.  Nothing but :class:`TaskError` ever leaves this module.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from .errors import TaskError
from .meta import KEY, read_meta
from .model import METRIC_KINDS, ReferenceOutput, Step, Task
from .plot import declared_elements
from .qwen import QwenStep  # registers Qwen's benchmark tasks too (.kinds)
from .rendering import RenderingError, TaskRendering, detect, from_record

THOUGHT_MARK = "\n\nThought: "
NBFORMAT = 4  # the notebook format major version tasks are written in (CIBench's, nbformat's current)


def _text(value: Any, path: str, what: str, cell: int | None) -> str:
    """A notebook multiline string (str or list of str), or TaskError."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    raise TaskError(path, f"{what} must be a string or a list of strings", cell)


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


def _output(out: Any, path: str, cell: int) -> tuple[str, dict]:
    if not isinstance(out, dict) or not isinstance(out.get("output_type"), str):
        raise TaskError(path, "an output is not an object with an output_type", cell)
    data = out.get("data", {})
    if not isinstance(data, dict):
        raise TaskError(path, f"a {out['output_type']} output has data that is not an object", cell)
    return out["output_type"], data


def reference_output(outputs: list[Any], path: str, cell: int) -> ReferenceOutput:
    """The step's reference, by the official rules.

    The first ``display_data`` holding an ``image/png`` (``vis``); any
    ``display_data`` after it is an error (the official loader asserts).  Else the
    LAST stdout stream or ``execute_result`` text (``general``); else ``exec``.
    """
    image = None
    for out in outputs:
        kind, data = _output(out, path, cell)
        if kind != "display_data":
            continue
        if image is not None:
            raise TaskError(
                path,
                "reference cell has a second display_data output after its image "
                "(a vis step must show exactly one image)",
                cell,
            )
        if "image/png" in data:
            image = _text(data["image/png"], path, "image/png data", cell)
    if image is not None:
        return ReferenceOutput("vis", image)
    for out in reversed(outputs):
        kind, data = _output(out, path, cell)
        if kind == "stream" and out.get("name") == "stdout":
            return ReferenceOutput("general", _text(out.get("text", ""), path, "stream text", cell))
        if kind == "execute_result":
            value = _text(data.get("text/plain", ""), path, "execute_result text/plain", cell)
            return ReferenceOutput("general", value)
    return ReferenceOutput("exec", None)


def _pairs(cells: list[Any], path: str) -> list[tuple[dict, dict]]:
    if not cells:
        raise TaskError(path, "notebook has no cells")
    pairs = []
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
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
        count = f"{len(kinds)} entries" if isinstance(kinds, list) else "no list of entries"
        raise TaskError(path, f"metadata.step_types has {count} for {n} steps")
    for i, k in enumerate(kinds):
        if not isinstance(k, str) or k not in METRIC_KINDS:
            raise TaskError(
                path,
                f"metadata.step_types[{i}]: unknown kind {k!r} (expected one of {', '.join(METRIC_KINDS)})",
            )
    return kinds


def _modules(meta: dict, n: int, path: str) -> list[tuple[str, ...]]:
    mods = meta.get("modules") or []
    if not mods:
        return [()] * n
    if not isinstance(mods, list) or len(mods) != n or not all(isinstance(m, str) for m in mods):
        raise TaskError(path, f"metadata.modules must be {n} strings, one per step")
    return [tuple(part.strip() for part in m.split("&")) for m in mods]


def _read_json(raw: bytes, name: str) -> dict:
    try:
        nb = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        problem = str(err) if not isinstance(err, RecursionError) else "nested too deeply"
        raise TaskError(name, f"not valid notebook JSON ({problem})") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TaskError(name, "not a notebook (no cells list)")
    if not isinstance(nb.get("metadata", {}), dict):
        raise TaskError(name, "notebook metadata is not an object")
    _check_version(nb, name)
    return nb


def _check_version(nb: dict, name: str) -> None:
    """Only nbformat 4: another major version lays cells and outputs out differently."""
    major = nb.get("nbformat")
    if type(major) is int and major == NBFORMAT:
        return
    found = "no nbformat version" if major is None else f"nbformat {major!r}"
    raise TaskError(name, f"{found}: only nbformat {NBFORMAT} notebooks can be tasks")


def parse_notebook(raw: bytes, path: Path, task_id: str, datasources: Path | None) -> Task:
    """Parse one notebook's bytes into a Task, or raise TaskError naming file and cell."""
    name = str(path)
    nb = _read_json(raw, name)
    meta = nb.get("metadata") or {}
    pairs = _pairs(nb["cells"], name)
    kinds, modules = _step_kinds(meta, len(pairs), name), _modules(meta, len(pairs), name)
    if modules[0] and kinds is None:
        raise TaskError(name, "metadata.modules needs metadata.step_types of the same length")
    split, lib, stem = task_id.split("/")
    extra = read_meta(meta, name, split, lib, stem)
    # The official loader tests the file path for 'chinese'; our tasks declare their language.
    chinese = "chinese" in name if extra["language_from_path"] else extra["language"] == "zh"
    steps = tuple(
        _step(i, md, code, kinds, modules, chinese, name, declared_elements(meta, i))
        for i, (md, code) in enumerate(pairs)
    )
    steps = _qwen_steps(steps, meta.get(KEY))
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
        rendering=_rendering(extra["rendering"], steps, name),
    )


def _qwen_steps(steps: tuple[Step, ...], extra: Any) -> tuple[Step, ...]:
    """A Qwen benchmark task's steps with what their grading reads of the item (tasks/qwen.py)."""
    item = extra.get("qwen") if isinstance(extra, dict) else None
    if not isinstance(item, dict):
        return steps
    qwen = QwenStep(str(item.get("family", "")), str(item.get("lang", "en")))
    qwen = replace(qwen, judge_prompt=item.get("judge_prompt"), answer=item.get("answer"))
    return tuple(replace(step, benchmark_item=qwen) for step in steps)


def _rendering(declared: dict | None, steps: tuple[Step, ...], name: str) -> TaskRendering:
    """Declared in ``metadata.cibench_lab.rendering``, else detected from the reference PNGs."""
    if declared is None:
        return detect(s.reference.value or "" for s in steps if s.reference.kind == "vis")
    try:
        return TaskRendering(from_record(declared, "metadata.cibench_lab.rendering"), "declared")
    except RenderingError as err:
        raise TaskError(name, str(err)) from None


def _step(
    i: int,
    md: dict,
    code: dict,
    kinds: list[str] | None,
    modules: list[tuple[str, ...]],
    chinese: bool,
    name: str,
    elements: tuple[str, ...],
) -> Step:
    instruction, thought = split_thought(_text(md.get("source", ""), name, "cell source", 2 * i))
    outputs = code.get("outputs", [])
    if not isinstance(outputs, list):
        raise TaskError(name, "code cell outputs is not a list", 2 * i + 1)
    ref = reference_output(outputs, name, 2 * i + 1)
    return Step(
        index=i,
        instruction=instruction,
        thought=thought,
        code=_text(code.get("source", ""), name, "cell source", 2 * i + 1),
        outputs=tuple(outputs),
        reference=ref,
        kind=kinds[i] if kinds else ref.kind,
        modules=modules[i],
        prompt=user_prompt(instruction, modules[i], chinese),
        plot_elements=elements,
    )
