"""Revision 0006 moves oracle reference runs out of ``event`` (and back), on SQLite and PostgreSQL.

What a person sees must not change: the committed database of an older version (fixtures/db) gives,
once upgraded, the report and the events export that the code before this revision printed for it
(``report-0005.*``, ``events-0005.jsonl``: printed by that code on a copy of the same fixture, see
fixtures/db/README.md) — the old code cannot run in this process, so its output is committed.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from alembic import command
from alembic.runtime.migration import MigrationContext
from pgserver import Cluster
from sqlalchemy import Engine, select, text

from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts
from cibench_lab.play.oracle import record_reference, references
from cibench_lab.store import Store, migrate, open_engine
from cibench_lab.store.locks import upgrade_lock
from cibench_lab.store.tables import OracleReference
from cibench_lab.tasks.library import TaskLibrary

FIXTURES = Path(__file__).parent.parent / "fixtures" / "db"
BEFORE = "0005"
ORACLE_ATTEMPT = "8ef1ae908d74403a998ba583cd5bde7d"  # the fixture's oracle run: 13 reference runs


def migrate_to(engine: Engine, revision: str, down: bool = False) -> None:
    """Alembic to ``revision`` on ``engine`` (a database made before migrations is stamped first)."""
    with upgrade_lock(engine) as conn:
        if migrate.stored_revision(conn) is None and migrate.describe(conn) != "empty":
            MigrationContext.configure(conn).stamp(migrate.scripts(), migrate.BASELINE)
        (command.downgrade if down else command.upgrade)(migrate.alembic_config(conn), revision)


def events(engine: Engine) -> list[tuple]:
    """Every event row as stored (the detail as its JSON text)."""
    with engine.connect() as conn:
        q = "SELECT id, attempt_id, kind, at, CAST(detail AS TEXT) FROM event ORDER BY id"
        return [tuple(r) for r in conn.execute(text(q))]


def old_references(rows: list[tuple]) -> dict[int, TurnOutput]:
    """The latest reference run of each step as the code before 0006 read it from events."""
    refs = {}
    for _, _, kind, _, detail in rows:
        if kind == "oracle":
            d = json.loads(detail)
            refs[d["step"]] = TurnOutput(d.get("code", ""), d["outputs"], d["error"], d["status"])
    return refs


@pytest.fixture
def old_copy(tmp_path) -> tuple[str, Engine]:
    """A copy of the committed old database, brought to the revision before 0006."""
    path = tmp_path / "class.sqlite"
    shutil.copy(FIXTURES / "results-v0.sqlite", path)
    url = f"sqlite:///{path}"
    engine = open_engine(url)
    migrate_to(engine, BEFORE)
    yield url, engine
    engine.dispose()


def test_upgrade_moves_each_reference_run_with_its_id_time_and_detail(old_copy):
    url, engine = old_copy
    before = events(engine)
    oracle = [r for r in before if r[2] == "oracle"]
    assert len(oracle) == 13
    migrate_to(engine, "head")
    assert events(engine) == [r for r in before if r[2] != "oracle"]  # every other event as it was
    store = Store(url)
    with store.session() as s:
        moved = list(s.scalars(select(OracleReference).order_by(OracleReference.id)))
        as_events = [(r.id, r.attempt_id, r.at, r.detail()) for r in moved]
    was = [
        (i, a, dt.datetime.fromisoformat(at).replace(tzinfo=dt.timezone.utc), json.loads(d))
        for i, a, _, at, d in oracle
    ]
    assert as_events == was
    attempts = Attempts(store, TaskLibrary.load([]))
    assert references(attempts, ORACLE_ATTEMPT) == old_references(before)
    store.dispose()


def test_downgrade_gives_back_the_events_byte_for_byte(old_copy):
    _, engine = old_copy
    before = events(engine)
    migrate_to(engine, "head")
    migrate_to(engine, BEFORE, down=True)
    assert events(engine) == before
    with engine.connect() as conn:
        assert "oracle_reference" not in conn.dialect.get_table_names(conn)


def test_an_upgraded_old_database_reports_and_exports_as_before(tmp_path, capsys):
    path = tmp_path / "class.sqlite"
    shutil.copy(FIXTURES / "results-v0.sqlite", path)
    db = f"sqlite:///{path}"
    for fmt, golden in (("table", "report-0005.txt"), ("csv", "report-0005.csv")):
        capsys.readouterr()
        assert main(["--db", db, "report", "--format", fmt]) == 0  # the first upgrades to head
        assert capsys.readouterr().out == (FIXTURES / golden).read_bytes().decode()
    assert main(["--db", db, "export", "--format", "jsonl", "--real-names", str(tmp_path / "out")]) == 0
    exported = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    golden = [json.loads(line) for line in (FIXTURES / "events-0005.jsonl").read_text().splitlines()]
    # the same rows in the same order; a reference run is no event row any more: no event_id
    assert [r["event_id"] for r in exported] == [
        None if r["kind"] == "oracle" else r["event_id"] for r in golden
    ]
    assert [r | {"event_id": 0} for r in exported] == [r | {"event_id": 0} for r in golden]


# ---- PostgreSQL -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg():
    with Cluster() as cluster:
        yield cluster


OLD_ROWS = """
INSERT INTO participant (id, name, created_at) VALUES (1, 'dave', '2026-01-02 03:04:05.123456');
INSERT INTO attempt (id, task_id, task_hash, mode, player, participant_id, settings, environment, workdir,
    notebook_path, n_steps, current_step, status, created_at)
    VALUES ('a1', 't/x/y', 'h', 'oracle', 'human', 1, '{}', '{}', '', '', 3, 2, 'open', '2026-01-02 03:04:06')
"""
STREAM = {"output_type": "stream", "name": "stdout", "text": "2\n"}
#: (id, kind, at, detail) as the code before 0006 wrote them: a settle, a reference run with its source,
#: an ``oracle`` event that is no reference run, a reference run without source or code
OLD_EVENTS = (
    (7, "settle", "2026-01-02 03:05:00", {"step": 0, "outcome": "next"}),
    (8, "oracle", "2026-01-02 03:05:01.5", {"source": "notebook", "step": 0, "code": "x = 1"}),
    (9, "oracle", "2026-01-02 03:06:00", {"note": "not a reference run"}),
    (10, "oracle", "2026-01-02 03:07:00", {"step": 1, "outputs": [STREAM], "error": False, "status": "ok"}),
)


def old_rows(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text(OLD_ROWS))
        for i, kind, at, detail in OLD_EVENTS:
            if "code" in detail:
                detail = detail | {"outputs": [], "error": False, "status": "ok"}
            row = {"id": i, "kind": kind, "at": at, "detail": json.dumps(detail)}
            insert = (
                "INSERT INTO event (id, attempt_id, kind, at, detail) VALUES (:id, 'a1', :kind, :at, :detail)"
            )
            conn.execute(text(insert), row)
        conn.execute(text("SELECT setval(pg_get_serial_sequence('event', 'id'), 10)"))


def pg_events(engine: Engine) -> list[tuple]:
    with engine.connect() as conn:
        q = "SELECT id, attempt_id, kind, at, detail FROM event ORDER BY id"
        return [tuple(r) for r in conn.execute(text(q))]


def column_types(engine: Engine, table: str) -> set[str]:
    with engine.connect() as conn:
        q = "SELECT data_type FROM information_schema.columns WHERE table_name = :t AND data_type LIKE :p"
        return set(conn.scalars(text(q), {"t": table, "p": "timestamp%"}))


def test_postgresql_moves_references_and_times_up_and_back(pg):
    url = pg.url(pg.new_database())
    engine = open_engine(url)
    migrate_to(engine, BEFORE)
    old_rows(engine)
    before = pg_events(engine)
    migrate_to(engine, "head")
    assert (
        column_types(engine, "event")
        == column_types(engine, "oracle_reference")
        == {"timestamp with time zone"}
    )
    assert [r[2] for r in pg_events(engine)] == ["settle", "oracle"]  # not a reference run: stays an event
    with engine.connect() as conn:
        policies = set(
            conn.scalars(text("SELECT policyname FROM pg_policies WHERE tablename = 'oracle_reference'"))
        )
    assert policies == {"cibench_read", "cibench_write"}
    store = Store(url)
    utc = dt.timezone.utc
    with store.session() as s:
        moved = [
            (r.id, r.at, r.detail()) for r in s.scalars(select(OracleReference).order_by(OracleReference.id))
        ]
    assert moved == [(i, at.replace(tzinfo=utc), d) for i, _, k, at, d in before if k == "oracle" and i != 9]
    attempts = Attempts(store, TaskLibrary.load([]))
    record_reference(attempts, "a1", 2, TurnOutput("y = 2", [], False, "ok"), source="restore")
    assert sorted(references(attempts, "a1")) == [0, 1, 2]
    with store.session() as s:  # a new row numbers on after the moved ones
        assert s.scalar(select(OracleReference.id).where(OracleReference.step == 2)) == 11
    store.dispose()
    migrate_to(engine, BEFORE, down=True)
    assert column_types(engine, "event") == {"timestamp without time zone"}
    after = pg_events(engine)
    assert after[:4] == before  # the moved events back with their ids, times and details
    (new,) = after[4:]
    assert new[0] == 11 and new[2] == "oracle" and new[4]["source"] == "restore"
    migrate_to(engine, "head")  # and up again
    engine.dispose()
