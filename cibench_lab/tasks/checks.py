"""Authoring checks on a task notebook: its structure and its recorded reference outputs.

Used by the build (before writing references) and by ``tasks verify``.  Every step's
answer must be well defined, that is graded on one unambiguous output; per step kind:

- ``exec``: no output at all;
- ``num``:  exactly one stdout stream or execute_result holding one number;
- ``text``: exactly one stdout stream or execute_result holding one short line;
- ``vis``:  exactly one display_data with an ``image/png``;
- ``general`` (generation split, no ``step_types``): exactly one of the above shapes,
  the printed text short enough to survive CIBench's 1,024-character trim;
- never an error or a stderr stream.
"""

from __future__ import annotations

import re
from typing import Any

from .model import METRIC_KINDS as STEP_KINDS

TEXT_MAX_CHARS = 200
GENERAL_MAX_CHARS = 900
NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def is_generation(split: str) -> bool:
    return split.startswith("cibench_generation")


def _src(cell: Any) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def check_structure(nb: dict, split: str, kernel_name: str) -> list[str]:
    """Problems with the CIBench format of ``nb`` (empty when it is fine)."""
    problems: list[str] = []
    cells = nb.get("cells") or []
    if not cells or len(cells) % 2:
        problems.append(f"expected an even, non-zero number of cells, found {len(cells)}")
    for index, cell in enumerate(cells):
        want = "markdown" if index % 2 == 0 else "code"
        if cell.get("cell_type") != want:
            problems.append(f"cell {index}: expected a {want} cell, found {cell.get('cell_type')}")
        elif not _src(cell).strip():
            problems.append(f"cell {index}: empty {want} cell")
    meta = nb.get("metadata") or {}
    problems += _check_kinds(meta, len(cells) // 2, split)
    lab = meta.get("cibench_lab")
    if not isinstance(lab, dict) or lab.get("schema_version") != 1 or not lab.get("title"):
        problems.append("metadata.cibench_lab must be an object with schema_version 1 and a title")
    if (meta.get("kernelspec") or {}).get("name") != kernel_name:
        problems.append(f"metadata.kernelspec.name must be {kernel_name!r}")
    return problems


def _check_kinds(meta: dict, n_steps: int, split: str) -> list[str]:
    if is_generation(split):
        extra = [k for k in ("step_types", "modules") if k in meta]
        if extra:
            return [f"a generation-split task has no {' or '.join(extra)} (kinds come from the outputs)"]
        return []
    problems = []
    step_types = meta.get("step_types")
    if not isinstance(step_types, list) or len(step_types) != n_steps:
        problems.append(f"metadata.step_types must list one kind per step ({n_steps} steps)")
    else:
        problems += [
            f"metadata.step_types[{i}]: {kind!r} is not one of {STEP_KINDS}"
            for i, kind in enumerate(step_types)
            if kind not in STEP_KINDS
        ]
    modules = meta.get("modules")
    if (
        not isinstance(modules, list)
        or len(modules) != n_steps
        or not all(isinstance(m, str) and m.strip() for m in modules)
    ):
        problems.append(f"metadata.modules must hold one non-empty string per step ({n_steps} steps)")
    return problems


def output_text(output: dict) -> str:
    if output.get("output_type") == "stream":
        text = output.get("text", "")
    else:
        text = (output.get("data") or {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


def _is_png(output: dict) -> bool:
    return output.get("output_type") == "display_data" and "image/png" in (output.get("data") or {})


def _is_answer(output: dict) -> bool:
    return output.get("output_type") == "execute_result" or (
        output.get("output_type") == "stream" and output.get("name") == "stdout"
    )


def check_step(kind: str, outputs: list[dict]) -> list[str]:
    """Problems with one step's outputs given its kind (``general`` for the generation split)."""
    problems = []
    for output in outputs:
        if output.get("output_type") == "error":
            problems.append(f"raised {output.get('ename')}: {output.get('evalue')}")
        elif output.get("output_type") == "stream" and output.get("name") == "stderr":
            problems.append(f"wrote to stderr: {output_text(output).strip()[:300]!r}")
    shapes = ", ".join(o.get("output_type", "?") for o in outputs) or "nothing"
    if kind == "general":
        kind = "exec" if not outputs else "vis" if any(map(_is_png, outputs)) else "general"
    if kind == "exec":
        return problems + ([f"must produce no output, produced {shapes}"] if outputs else [])
    if kind == "vis":
        ok = len(outputs) == 1 and _is_png(outputs[0])
        return problems + ([] if ok else [f"must show exactly one PNG figure, produced {shapes}"])
    if len(outputs) != 1 or not _is_answer(outputs[0]):
        return problems + [f"must print exactly one answer, produced {shapes}"]
    return problems + _check_answer(kind, output_text(outputs[0]).strip())


def _check_answer(kind: str, answer: str) -> list[str]:
    if kind == "num" and not NUMBER_RE.fullmatch(answer):
        return [f"must print one number, printed {answer[:100]!r}"]
    if kind == "text" and (not answer or "\n" in answer or len(answer) > TEXT_MAX_CHARS):
        return [f"must print one short line, printed {answer[:100]!r}"]
    if kind == "general" and (not answer or len(answer) > GENERAL_MAX_CHARS):
        return [f"must print a non-empty answer of at most {GENERAL_MAX_CHARS} characters"]
    return []


def check_outputs(nb: dict, split: str) -> list[str]:
    """Problems with the recorded outputs of each step, given its step kind."""
    code_cells = [c for c in nb.get("cells") or [] if c.get("cell_type") == "code"]
    meta = nb.get("metadata") or {}
    kinds = ["general"] * len(code_cells) if is_generation(split) else meta.get("step_types") or []
    problems = []
    for number, (kind, cell) in enumerate(zip(kinds, code_cells, strict=False), start=1):
        problems += [f"step {number} ({kind}): {p}" for p in check_step(kind, cell.get("outputs") or [])]
    return problems


def known_exception(profile: str, kind: str, reference: str | None) -> bool:
    """Under ``cibench`` a text answer with no ASCII word scores 0 even against itself.

    The official ROUGE tokenizer keeps only ``[a-z0-9]`` runs, so e.g. a Chinese answer has no
    tokens (docs/grading.md, the ``cibench`` profile); such a step is a known exception, not drift.
    """
    if profile != "cibench" or kind != "text":
        return False
    return not _ROUGE_TOKEN.search((reference or "").lower())
