"""``tasks import`` of Qwen's Code Interpreter Benchmark: its JSONL files and ``upload_file_clean/``.

The source is a ``.jsonl`` file, or a folder holding ``.jsonl`` files at its top or in ``eval_data/``
(and no CIBench layout): the original's README unzips the data in ``benchmark/`` and moves the
questions into ``benchmark/eval_data/``, beside ``upload_file_clean/``; that folder, ``eval_data/``
itself and a file in it all import with the uploads.  Each file is either the benchmark (rows ``{query, tags,
input_file_path, lang}``, as ``eval_code_interpreter_v1.jsonl``) or GSM8K-style (rows
``{question, answer}``), told by its first row.  ``upload_file_clean/`` beside the files is
the benchmark's data: the original copies all of it into the working folder as
``upload_file/``, so every imported task lists all of it (``data_files``), copied into
``<task dir>/datasources/upload_file/``.

Items become ``cibench_qwen/<family>/ci_<line>`` (benchmark) and
``cibench_qwen/qwen-math/gsm8k_<line>`` (GSM8K) tasks (:mod:`cibench_lab.tasks.qwen`).  A
bad row (not UTF-8, not JSON, nested too deeply, a field wrong) is rejected by file, line and field,
the rest import; re-importing changes nothing, and updates a task an earlier version imported
differently (its title, its instruction's markdown).  The data is written before the notebooks,
each file whole or not at all: an import a full disk stops leaves no task without its data.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any

from . import qwen
from .archive import DATASOURCES, is_ignored
from .errors import TaskError
from .format import parse_notebook
from .importer import ImportReport, _inside, _write_if_changed, refused_link
from .library import TaskLibrary

SPLIT = "cibench_qwen"
UPLOAD = "upload_file_clean"
EVAL_DATA = "eval_data"  # where the original's README moves the questions, beside UPLOAD
_BENCH_FIELDS = ("query", "tags")
_GSM8K_FIELDS = ("question", "answer")


def is_qwen_source(source: Path) -> bool:
    """A ``.jsonl`` file, or a folder with ``.jsonl`` files (at its top or in ``eval_data/``) or
    ``upload_file_clean/`` at its top."""
    if source.is_file():
        return source.suffix == ".jsonl"
    return source.is_dir() and (bool(_jsonl_files(source)) or (source / UPLOAD).is_dir())


def data_folder(source: Path) -> Path:
    """The folder whose ``upload_file_clean/`` goes with ``source``: the source's own (a file's: the one
    it is in), or the one above an ``eval_data/`` folder without its own."""
    folder = source.parent if source.is_file() else source
    if not (folder / UPLOAD).is_dir() and folder.name == EVAL_DATA and (folder.parent / UPLOAD).is_dir():
        return folder.parent
    return folder


def _rows(path: Path) -> list[tuple[int, Any]]:
    """(line number, parsed row) of every non-blank line; a line that is not JSON (not UTF-8,
    nested too deeply for the parser) is a TaskError naming it."""
    rows = []
    for n, raw in enumerate(path.read_bytes().splitlines(), start=1):
        if raw.strip():
            rows.append((n, _row(raw, f"{path}:{n}")))
    return rows


def _row(raw: bytes, where: str) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        return TaskError(where, f"not UTF-8 (byte {err.start + 1} of the line)")
    except RecursionError:
        return TaskError(where, "not a JSON object (nested too deeply)")
    except ValueError as err:
        return TaskError(where, f"not a JSON object ({err})")


def _kind(path: Path, rows: list[tuple[int, Any]]) -> str:
    first = next((row for _, row in rows if isinstance(row, dict)), None)
    if first is not None and "query" in first:
        return "ci"
    if first is not None and "question" in first:
        return "gsm8k"
    what = "rows neither of the benchmark {query, tags, ...} nor of GSM8K {question, answer}"
    raise TaskError(str(path), what)


def _check_fields(row: Any, fields: tuple[str, ...], where: str) -> None:
    if not isinstance(row, dict):
        raise TaskError(where, "a row is not a JSON object")
    for name in fields:
        if not isinstance(row.get(name), str) or not row[name].strip():
            raise TaskError(where, f"field {name!r}: missing or not a non-empty string")


def _check_item(row: Any, where: str, uploads: set[str]) -> None:
    _check_fields(row, _BENCH_FIELDS, where)
    if row.get("lang", "en") not in ("en", "zh"):
        raise TaskError(where, f"field 'lang': {row['lang']!r} is neither 'en' nor 'zh'")
    files = row.get("input_file_path", [])
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise TaskError(where, "field 'input_file_path': not a list of paths")
    for i, f in enumerate(files):
        rel = posixpath.normpath(f)
        if f.startswith("/") or rel.startswith(".."):
            raise TaskError(where, f"field 'input_file_path[{i}]': {f!r} is not a path inside {UPLOAD}/")
        if rel not in uploads:
            raise TaskError(where, f"field 'input_file_path[{i}]': {f!r} is not in {UPLOAD}/")


def _uploads(folder: Path, source: Path, report: ImportReport) -> dict[str, Path]:
    """``rel path`` -> file, for every file of ``upload_file_clean/`` that may be imported."""
    if not folder.is_dir():
        return {}
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(is_ignored(p) for p in rel.parts) or (path.is_dir() and not path.is_symlink()):
            continue
        why = refused_link(path, source)
        if why is not None:
            report.rejected.append((str(path), why))
        elif path.is_file():
            found[rel.as_posix()] = path
    return found


def _notebooks(path: Path, uploads: dict[str, Path], report: ImportReport) -> dict[str, bytes]:
    """Task id -> notebook bytes for every good row of one JSONL file; bad rows rejected."""
    rows = _rows(path)
    kind = _kind(path, rows)
    data_files = [f"{qwen.WORKDIR}/{rel}" for rel in uploads]
    out = {}
    for n, row in rows:
        where = f"{path}:{n}"
        try:
            if isinstance(row, TaskError):
                raise row
            if kind == "ci":
                _check_item(row, where, set(uploads))
                meta = qwen.benchmark_meta(row, path.name, n)
            else:
                _check_fields(row, _GSM8K_FIELDS, where)
                meta = qwen.gsm8k_meta(row, path.name, n)
        except TaskError as err:
            report.rejected.append((err.path, err.problem))
            continue
        task_id = f"{SPLIT}/{meta['family']}/{kind}_{n:04d}"
        nb = qwen.notebook(meta, data_files)
        out[task_id] = (json.dumps(nb, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    return out


def _jsonl_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    found = [*source.glob("*.jsonl"), *(source / EVAL_DATA).glob("*.jsonl")]
    return sorted(p for p in found if p.is_file() and not is_ignored(p.name))


def import_qwen(source: Path, into: Path, served: TaskLibrary) -> ImportReport:
    """Import the benchmark's JSONL file(s) and ``upload_file_clean/`` of ``source`` into ``into``."""
    report = ImportReport()
    folder = data_folder(source)
    uploads = _uploads(folder / UPLOAD, folder, report)
    files = _jsonl_files(source)
    if not files:
        raise TaskError(str(source), "no .jsonl file of Qwen's benchmark (eval_code_interpreter_v1.jsonl)")
    notebooks: dict[str, bytes] = {}
    for path in files:
        if refused_link(path, folder) is not None:
            report.rejected.append((str(path), "a symbolic link out of the import source: not imported"))
            continue
        for task_id, raw in _notebooks(path, uploads, report).items():
            if task_id in notebooks:
                report.rejected.append((str(path), f"task id {task_id!r} again (two files of the same kind)"))
                continue
            notebooks[task_id] = raw
    for rel, path in uploads.items():  # the data first: no task is ever written without it
        report.data_files += _write_if_changed(path, into / DATASOURCES / qwen.WORKDIR / rel)
    for task_id, raw in notebooks.items():
        _write_task(task_id, raw, into, served, report)
    return report


def _write_task(task_id: str, raw: bytes, into: Path, served: TaskLibrary, report: ImportReport) -> None:
    dest = into / f"{task_id}.ipynb"
    try:
        parse_notebook(raw, dest, task_id, into / DATASOURCES)  # the schema validates what we wrote
    except TaskError as err:
        report.rejected.append((task_id, err.problem))
        return
    other = served.tasks.get(task_id)
    if other is not None and not _inside(other.path, into):
        report.rejected.append((task_id, f"task id {task_id!r} is already served from {other.path}"))
        return
    existed = dest.is_file()
    if not _write_if_changed(raw, dest):
        report.unchanged.append(task_id)
    else:
        (report.updated if existed else report.imported).append(task_id)
