"""The system fonts task kernels draw with: the CJK font, and the font set's fingerprint.

Chinese plots need a CJK font.  A benchmark's start code may ask matplotlib for SimHei, which
is not to be had offline; the lab uses Debian's ``fonts-noto-cjk`` instead (``scripts/setup``
installs it): its Noto Sans CJK stands in for SimHei (:data:`STANDS_FOR`) in every task kernel
(the benchmark's start code, :mod:`cibench_lab.benchmarks`, also keeps it the last fallback of
``font.family`` after any reset of matplotlib's settings, e.g. ``sns.set_theme()``), and each
attempt records which font that was (``environment.fonts.cjk``).

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
#: The Chinese family names plotting code habitually asks for (the usual ``font.sans-serif`` idioms of
#: Windows, macOS and Linux); each is CJK_FAMILY in a task kernel (:data:`CJK_CODE`).
CJK_ALIASES = (
    STANDS_FOR,
    "Microsoft YaHei",
    "Microsoft JhengHei",
    "SimSun",
    "NSimSun",
    "KaiTi",
    "FangSong",
    "STHeiti",
    "STSong",
    "STKaiti",
    "Heiti SC",
    "Heiti TC",
    "PingFang SC",
    "PingFang TC",
    "Hiragino Sans GB",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "Arial Unicode MS",
)

#: Run at every task kernel's start (:data:`.kernel.START_CODE`): when the CJK font is installed,
#: each of CJK_ALIASES names it in matplotlib's font list, and it is the last fallback of
#: ``font.family`` whatever sets the family later (``sns.set_theme()``, ``plt.rcdefaults()``, a style:
#: the family's validator appends it), so Chinese draws in any plot while the fonts before it draw
#: Latin text as they would. Nothing happens without matplotlib or without the font.
CJK_CODE = f"""\
def _cibench_cjk(family={CJK_FAMILY!r}, aliases={CJK_ALIASES!r}):
    try:
        import dataclasses
        import matplotlib
        import matplotlib.font_manager as fm
        import matplotlib.rcsetup as rcsetup
    except ImportError:
        return
    fonts = fm.fontManager.ttflist
    cjk = [f for f in fonts if f.name == family]
    known = {{f.name for f in fonts}}
    fonts.extend(dataclasses.replace(f, name=a) for a in aliases if a not in known for f in cjk)
    fm.fontManager._findfont_cached.cache_clear()
    check = rcsetup._validators["font.family"]
    if not cjk or getattr(check, "cibench_cjk", False):
        return
    def with_cjk(value):
        names = check(value)
        return names if family in names else [*names, family]
    with_cjk.cibench_cjk = True
    rcsetup._validators["font.family"] = with_cjk
    matplotlib.rcParams["font.family"] = matplotlib.rcParams["font.family"]
_cibench_cjk()
del _cibench_cjk
"""


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
