"""The csv and notebooks exports on PostgreSQL: rows streamed by server-side cursors (``yield_per``)
while each attempt's steps are read beside them give the same tables as on SQLite."""

from __future__ import annotations

import csv
from pathlib import Path

import nbformat
import pytest
from exportdb import build
from pgserver import Cluster

from cibench_lab.cli import main

TABLES = ("attempts", "steps", "turns", "events", "participants")
#: Columns that differ between two builds of the same data (ids, times, pseudonyms, the task folder).
VARYING = ("attempt_id", "event_id", "participant", "detail", "seconds", "working_seconds", "task_hash")
VARYING += (
    "created_at",
    "finished_at",
    "opened_at",
    "first_run_at",
    "settled_at",
    "started_at",
    "at",
    "enrolled_at",
)


@pytest.fixture(scope="module")
def pg():
    with Cluster() as cluster:
        yield cluster


def exported(built, folder: Path, fmt: str) -> Path:
    args = ["--db", built.db, "--task-dir", str(built.root), "export", "--format", fmt, str(folder)]
    assert main(args) == 0
    return folder


def stable(folder: Path, table: str) -> list[dict[str, str]]:
    with (folder / f"{table}.csv").open(newline="", encoding="utf-8") as f:
        return [{k: v for k, v in row.items() if k not in VARYING} for row in csv.DictReader(f)]


def test_postgresql_exports_the_same_tables_as_sqlite(pg, tmp_path):
    on_pg = build(tmp_path / "pg", pg.url(pg.new_database()))
    on_sqlite = build(tmp_path / "sqlite")
    assert on_pg.db.startswith("postgresql")
    a = exported(on_pg, tmp_path / "pg-csv", "csv")
    b = exported(on_sqlite, tmp_path / "sqlite-csv", "csv")
    for table in TABLES:
        rows = stable(a, table)
        assert rows and rows == stable(b, table), table
    notebooks = exported(on_pg, tmp_path / "pg-nb", "notebooks")
    paths = list(notebooks.iterdir())
    assert len(paths) == len(on_pg.ids)
    for path in paths:
        nbformat.validate(nbformat.read(str(path), as_version=4))
    on_pg.attempts.store.dispose()
