"""Finding the official layout in a folder or a zip (CIBench's ``cibench_dataset.zip``).

The official zip unpacks to ``cibench_dataset/{cibench_template, cibench_template_chinese,
cibench_generation}/<lib>/*.ipynb`` (``datasources/`` is collected separately), so the
task root may be the folder itself or one level below it.
"""

from __future__ import annotations

import hashlib
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from .errors import TaskError

SPLITS = ("cibench_template", "cibench_template_chinese", "cibench_generation")
DATASOURCES = "datasources"
#: Folder names never searched for tasks (editor and archiver droppings).
IGNORED_DIRS = (".ipynb_checkpoints", "__MACOSX", "__pycache__")
MAX_UNPACKED = 4 * 1024**3  # refuse zips that would unpack to more than this


def is_ignored(part: str) -> bool:
    return part in IGNORED_DIRS or part.startswith(".")


def has_layout(folder: Path) -> bool:
    return any((folder / name).is_dir() for name in (*SPLITS, DATASOURCES))


def find_root(folder: Path) -> Path:
    """The folder holding the split folders: ``folder`` or its single meaningful child."""
    if has_layout(folder):
        return folder
    children = [c for c in sorted(folder.iterdir()) if c.is_dir() and not is_ignored(c.name)]
    for child in children:
        if has_layout(child):
            return child
    raise TaskError(
        str(folder),
        f"no CIBench layout found (expected {', '.join(SPLITS)} or {DATASOURCES}/ here or one level down)",
    )


def _safe_members(zf: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    members, total = [], 0
    for info in zf.infolist():
        parts = PurePosixPath(info.filename).parts
        if info.filename.startswith("/") or ".." in parts or "\\" in info.filename:
            raise TaskError(name, f"zip member {info.filename!r} points outside the archive")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise TaskError(
                name, f"zip member {info.filename!r} is a symbolic link (archives of tasks hold none)"
            )
        if any(is_ignored(p) for p in parts):
            continue
        total += info.file_size
        members.append(info)
    if total > MAX_UNPACKED:
        raise TaskError(name, f"zip would unpack to {total} bytes (limit {MAX_UNPACKED})")
    return members


def unpack(archive: Path, dest: Path) -> Path:
    """Unpack ``archive`` into ``dest`` (safely) and return the task root inside it."""
    name = str(archive)
    try:
        with zipfile.ZipFile(archive) as zf:
            members = _safe_members(zf, name)
            for info in members:
                zf.extract(info, dest)
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise TaskError(name, f"cannot read zip ({err})") from None
    return find_root(dest)


def cached_unpack(archive: Path, cache: Path) -> Path:
    """Unpack once per archive content into ``cache/<sha>``; return the task root."""
    digest = hashlib.sha256()
    try:
        with open(archive, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as err:
        raise TaskError(str(archive), f"cannot read: {err.strerror}") from None
    dest = cache / digest.hexdigest()[:16]
    if dest.is_dir():
        return find_root(dest)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=cache))
    try:
        unpack(archive, tmp)
        tmp.rename(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return find_root(dest)
