"""Paths that never pass through a link a kernel made.

Everything under the lab's attempts folder is a kernel's work: its attempt folder is bound read-write
into its sandbox. A symbolic link there may lead anywhere the server's user can read or write (``/``,
``/proc/self/environ``, the results database, the runtime folder's tokens), and a hard link there is
another name of a file outside it. :func:`check_no_link` walks a path one component at a time, as the
kernel of the operating system would, and refuses it when any step is a symbolic link inside the
attempts folder, or when it ends on a file there with more than one name. A link outside the attempts
folder (a server root's own) is followed, and what it leads to is walked the same way.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

MAX_LINKS = 40  # as the operating system's ELOOP


class LinkRefused(ValueError):
    """A path that passes through a link in the attempts folder; its message is one line."""


def _inside(path: Path, attempts: Path) -> bool:
    """``path`` strictly inside ``attempts`` (the folder itself may be the server's own link)."""
    return path != attempts and path.is_relative_to(attempts)


def _walk(path: Path, attempts: Path, shown: str, depth: int) -> tuple[Path, os.stat_result | None]:
    """The real path of absolute ``path`` and its ``lstat`` (None when it does not exist)."""
    current, st = Path("/"), os.lstat("/")
    parts = path.parts[1:]
    for at, part in enumerate(parts):
        if part in ("", "."):
            continue
        if part == "..":
            current = current.parent
            continue
        step = current / part
        try:
            st = os.lstat(step)
        except (OSError, ValueError):  # what is not there is no link: the rest is as named
            return step.joinpath(*parts[at + 1 :]), None
        if not stat.S_ISLNK(st.st_mode):
            current = step
            continue
        if _inside(step, attempts):
            raise LinkRefused(f"{shown}: a link in the attempts folder is not followed")
        if depth >= MAX_LINKS:
            raise LinkRefused(f"{shown}: too many levels of links")
        current, found = _walk(current / os.readlink(step), attempts, shown, depth + 1)
        if found is None:
            return current.joinpath(*parts[at + 1 :]), None
        st = found
    return current, st


def check_no_link(path: str | Path, attempts: str | Path, shown: str = "") -> Path:
    """The real path ``path`` names, or :class:`LinkRefused` (naming ``shown``, else ``path``) when it
    passes through a symbolic link inside ``attempts`` or ends on a file there with other names."""
    attempts = Path(os.path.realpath(attempts))
    shown = shown or str(path)
    real, st = _walk(Path(os.path.abspath(path)), attempts, shown, 0)
    if st is not None and _inside(real, attempts) and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise LinkRefused(f"{shown}: a hard link (a file with other names) in the attempts folder is refused")
    return real


def _open_folder(path: Path) -> int:
    """A descriptor of ``path``'s folder, opened without following a link there."""
    try:
        return os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LinkRefused(f"{path.parent.name}: a link, not the attempt's folder; not written") from None
        raise


def _refuse_link(st: os.stat_result, path: Path, doing: str) -> None:
    if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
        raise LinkRefused(f"{path.name}: a link in the attempt folder; not {doing} through it")


def write_no_link(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole, never through a link: its folder opened without following a
    link, a symbolic or hard link at ``path`` refused (:class:`LinkRefused`, one line), the text written
    to a new file beside it and renamed over it (a reader never sees it half-written)."""
    folder = _open_folder(path)
    partial = f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        try:
            _refuse_link(os.lstat(path.name, dir_fd=folder), path, "written")
        except FileNotFoundError:
            pass
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        with os.fdopen(os.open(partial, flags, 0o644, dir_fd=folder), "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(partial, path.name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=folder)
        raise
    finally:
        os.close(folder)
