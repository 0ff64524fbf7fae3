"""Times: aware UTC in the code, ``...Z`` out, stored naive values read as UTC (SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest
from pgserver import Cluster
from sqlalchemy import select, text

from cibench_lab.store import Store
from cibench_lab.store.tables import Participant
from cibench_lab.store.times import as_utc, iso, parse_iso, utcnow

UTC = dt.timezone.utc
AT = dt.datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)


def test_one_serializer_writes_what_the_hand_appended_z_wrote():
    naive = AT.replace(tzinfo=None)
    paris = AT.astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert iso(AT) == iso(naive) == iso(paris) == naive.isoformat() + "Z" == "2026-01-02T03:04:05.123456Z"
    whole = AT.replace(microsecond=0)
    assert iso(whole) == "2026-01-02T03:04:05Z"  # as isoformat() wrote it
    assert iso(whole, timespec="microseconds") == "2026-01-02T03:04:05.000000Z"  # the exports' form
    assert iso(None) is None


def test_reading_back_gives_aware_utc():
    assert parse_iso(iso(AT)) == AT and parse_iso(iso(AT)).tzinfo is UTC
    assert parse_iso("2026-01-02T04:04:05.123456+01:00") == AT
    assert as_utc(AT.replace(tzinfo=None)) == AT  # naive is UTC
    assert utcnow().tzinfo is UTC


def test_sqlite_keeps_its_stored_text_and_reads_old_rows_as_utc(tmp_path):
    path = tmp_path / "r.sqlite"
    store = Store(f"sqlite:///{path}")
    with store.session() as s:
        s.add(Participant(name="new", created_at=AT.astimezone(dt.timezone(dt.timedelta(hours=-5)))))
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT INTO participant (name, created_at) VALUES ('old', '2026-01-02 03:04:05.123456')")
    stored = db.execute("SELECT name, created_at FROM participant ORDER BY id").fetchall()
    db.close()
    assert stored == [("new", "2026-01-02 03:04:05.123456"), ("old", "2026-01-02 03:04:05.123456")]
    with store.session() as s:
        assert list(s.scalars(select(Participant.created_at))) == [AT, AT]
    store.dispose()


@pytest.fixture(scope="module")
def pg():
    with Cluster() as cluster:
        yield cluster


def test_postgresql_keeps_the_instant_whatever_the_session_time_zone(pg):
    database = pg.new_database()
    pg.execute(f"ALTER DATABASE {database} SET timezone = 'America/New_York'")
    store = Store(pg.url(database), auto_upgrade=True)
    with store.session() as s:
        s.add(Participant(name="dave", created_at=AT))
    with store.session() as s:
        assert s.scalar(select(Participant.created_at)) == AT
        utc_text = (
            "SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') FROM participant"
        )
        assert s.scalar(text(utc_text)) == "2026-01-02 03:04:05.123456"
    store.dispose()
