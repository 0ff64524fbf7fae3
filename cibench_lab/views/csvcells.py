"""The one CSV cell rule: a cell a spreadsheet would read as a formula is written as text.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
``'`` (OWASP's "CSV injection" advice): Excel, LibreOffice and Google Sheets then show it as text
instead of running it (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``, ``@SUM(...)``). Real numbers
(``int``, ``float``) are left alone: their text is digits, a sign, a point and an exponent, which no
spreadsheet runs, and a negative score must stay a number. Text that only looks like a number
(``"-3"``) is text, and is quoted like any other. Every CSV the project writes — the class CSV,
``export --format csv``, ``report --format csv`` and ``--compare`` — goes through :class:`Writer`;
the lab's browser downloads apply the same rule (``src/csvcell.ts``). docs/exports.md, "CSV cells".
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any

LEADS = ("=", "+", "-", "@", "\t", "\r")


def neutral(value: Any) -> Any:
    """``value`` as a CSV cell that runs nothing: a text starting with a lead gets a ``'``."""
    if isinstance(value, str) and value.startswith(LEADS):
        return "'" + value
    return value


class Writer:
    """``csv.writer`` whose every cell is :func:`neutral`."""

    def __init__(self, stream: IO[str], **options: Any):
        self._csv = csv.writer(stream, **options)

    def writerow(self, row: Iterable[Any]) -> None:
        self._csv.writerow([neutral(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
