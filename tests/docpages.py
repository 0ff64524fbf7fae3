"""The documentation's Markdown pages, for the tests that hold the docs to the code: the README, CONTRIBUTING
and every page under docs/ (not the built site)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    + [page for page in (ROOT / "docs").rglob("*.md") if "_build" not in page.parts]
)
