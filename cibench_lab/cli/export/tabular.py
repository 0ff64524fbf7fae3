"""`export --format csv|jsonl`: one file per table (attempts, steps, turns, events, participants).

CSV: a header row, then one row each; empty is null, booleans are ``true``/``false``, JSON values
(``detail``, ``plan``, a list answer) are JSON text.  JSONL: one JSON object a line, the same
columns in the same order with their JSON types.  Rows are written as they are read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from ...store import Store
from ...store.tables import utcnow
from ...views import csvcells
from . import rows
from .columns import ATTEMPTS, EVENTS, PARTICIPANTS, STEPS, TURNS
from .events import events
from .selection import Selection

FORMATS = ("csv", "jsonl")


def csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


class Table:
    """One table's file; ``write`` checks a row has exactly the table's columns."""

    def __init__(self, stream: IO[str], fmt: str, name: str, columns: tuple[str, ...]):
        self.stream, self.fmt, self.name, self.columns = stream, fmt, name, columns
        self.count = 0
        self._csv = csvcells.Writer(stream) if fmt == "csv" else None
        if self._csv is not None:
            self._csv.writerow(columns)

    def write(self, row: dict[str, Any]) -> None:
        if self.count == 0 and tuple(row) != self.columns:
            raise AssertionError(f"{self.name}: row keys {list(row)} are not its columns")
        self.count += 1
        if self._csv is not None:
            self._csv.writerow([csv_value(row[c]) for c in self.columns])
        else:
            self.stream.write(json.dumps(row, ensure_ascii=False) + "\n")

    def write_all(self, items: Iterator[dict[str, Any]]) -> None:
        for row in items:
            self.write(row)


def write_tables(store: Store, sel: Selection, folder: Path, fmt: str) -> dict[str, int]:
    """Write every table of the selection under ``folder``; rows written per table."""
    folder.mkdir(parents=True, exist_ok=True)
    now = utcnow()
    tables: list[Table] = []
    with store.session() as s, ExitStack() as files:

        def table(name: str, columns: tuple[str, ...]) -> Table:
            path = folder / f"{name}.{fmt}"
            stream = files.enter_context(path.open("w", encoding="utf-8", newline=""))
            tables.append(Table(stream, fmt, name, columns))
            return tables[-1]

        attempts, steps = table("attempts", ATTEMPTS), table("steps", STEPS)
        for attempt, its_steps in rows.attempts(s, sel, now):
            attempts.write(attempt)
            steps.write_all(iter(its_steps))
        table("turns", TURNS).write_all(rows.turns(s, sel))
        table("events", EVENTS).write_all(events(s, sel))
        answers = rows.answer_columns(s, sel)
        table("participants", (*PARTICIPANTS, *answers)).write_all(rows.participants(s, sel, answers))
    return {t.name: t.count for t in tables}
