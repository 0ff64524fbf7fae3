"""The system fonts task kernels draw with: the CJK font, and the font set's fingerprint.

Chinese plots need a CJK font.  Qwen's Code Interpreter Benchmark asks matplotlib for SimHei,
which is not to be had offline; the lab uses Debian's ``fonts-noto-cjk`` instead (``scripts/setup``
installs it): its Noto Sans CJK stands in for SimHei in a Qwen task's kernel
(:mod:`.qwen_setup`, which also keeps it the last fallback of ``font.family`` after any reset of
matplotlib's settings, e.g. ``sns.set_theme()``), and each attempt records which font that was
(``environment.fonts.cjk``).

The sandbox binds a matplotlib font cache built once (:func:`.sandbox.prepare_mpl_cache`); it is
kept per :func:`font_set_digest`, so installing or removing a font builds a new one instead of
leaving every kernel with a list that lacks it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from functools import lru_cache
from pathlib import Path

#: The folders matplotlib searches for system fonts on Linux (its ``X11FontDirectories``); a
#: sandboxed kernel has no user font folders (its HOME is empty).
FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "/usr/X11R6/lib/X11/fonts/TTF",
    "/usr/X11/lib/X11/fonts",
)
FONT_EXTENSIONS = (".ttf", ".otf", ".ttc", ".afm")
CJK_PACKAGE = "fonts-noto-cjk"
#: The family matplotlib reads from the package's sans-serif collection (its first face).
CJK_FAMILY = "Noto Sans CJK JP"
CJK_FILE = "NotoSansCJK-Regular.ttc"
#: What the original asks for, and gets from CJK_FAMILY here.
STANDS_FOR = "SimHei"


def font_files(dirs: tuple[str, ...] = FONT_DIRS) -> list[Path]:
    """Every font file matplotlib would find under ``dirs``, sorted."""
    found = []
    for top in dirs:
        for root, _, files in os.walk(top):
            found += [Path(root) / f for f in files if f.lower().endswith(FONT_EXTENSIONS)]
    return sorted(found)


def font_set_digest(dirs: tuple[str, ...] = FONT_DIRS) -> str:
    """A short fingerprint of the font set: each file's path, size and modification time."""
    h = hashlib.sha256()
    for path in font_files(dirs):
        try:
            st = path.stat()
        except OSError:
            continue
        h.update(f"{path}\0{st.st_size}\0{int(st.st_mtime)}\n".encode())
    return h.hexdigest()[:12]


def _package_version(package: str) -> str | None:
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


@lru_cache(maxsize=1)
def cjk_font() -> dict | None:
    """The CJK font task kernels draw Chinese with (None: not installed — Chinese shows as boxes)."""
    path = next((p for p in font_files() if p.name == CJK_FILE), None)
    if path is None:
        return None
    return {
        "family": CJK_FAMILY,
        "file": str(path),
        "package": CJK_PACKAGE,
        "version": _package_version(CJK_PACKAGE),
        "stands_for": STANDS_FOR,
    }


def fonts_record() -> dict:
    """``environment.fonts``: the CJK font (None when missing)."""
    return {"cjk": cjk_font()}
