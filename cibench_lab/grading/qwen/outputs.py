"""The original's output folder: ``{task}_{model}_res.jsonl`` per task and model, and images.

``visualization`` and ``general`` files hold the benchmark's items with the generation in
``gen``; ``gsm8k`` files hold GSM8K rows with ``completion`` and the ``acc`` the original
recorded.  Lines that are not JSON are skipped, as the original's loader skips them (and
counted).  An image link's path is rebased onto the output folder: its file is the one of the
same name in that folder (the original saved them in its work folder), or a relative path
inside it; never a file outside it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

TASKS = ("gsm8k", "visualization", "general")
_NAME = re.compile(r"^(gsm8k|visualization|general)_(.+)_res\.jsonl$")


@dataclass
class OutputFile:
    """One ``{task}_{model}_res.jsonl``: its rows in order and the lines it skipped."""

    path: Path
    task: str
    model: str
    rows: list[dict] = field(default_factory=list)
    skipped: int = 0


def load_rows(path: Path) -> tuple[list[dict], int]:
    """The JSON objects of a JSONL file, and how many lines were not one."""
    rows: list[dict] = []
    skipped = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                row = json.loads(line)
            except ValueError:
                skipped += 1
                continue
            if isinstance(row, dict):
                rows.append(row)
            else:
                skipped += 1
    return rows, skipped


def output_files(folder: Path) -> list[OutputFile]:
    """The folder's result files, by model, then in the original's task order."""
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: not a folder of Qwen benchmark outputs")
    found = []
    for path in sorted(folder.iterdir()):
        named = _NAME.match(path.name)
        if named and path.is_file():
            rows, skipped = load_rows(path)
            found.append(OutputFile(path, named.group(1), named.group(2), rows, skipped))
    if not found:
        raise FileNotFoundError(f"{folder}: no {{gsm8k|visualization|general}}_MODEL_res.jsonl file in it")
    return sorted(found, key=lambda f: (f.model, TASKS.index(f.task)))


def rebase(link: str, folder: Path) -> Path | None:
    """The file an image link names, inside ``folder``; None when there is none."""
    root = folder.resolve()
    name = Path(link).name
    candidates = [root / name] if name else []
    if not Path(link).is_absolute():
        candidates.insert(0, root / link)
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_relative_to(root) and resolved.is_file():
            return resolved
    return None


def upload_folder(folder: Path, given: Path | None) -> Path | None:
    """The data the items' code reads: ``given``, else ``upload_file_clean`` beside or above."""
    if given is not None:
        if not given.is_dir():
            raise FileNotFoundError(f"{given}: not a folder (--upload-files names upload_file_clean)")
        return given
    for candidate in (folder / "upload_file_clean", folder.parent / "upload_file_clean"):
        if candidate.is_dir():
            return candidate
    return None
