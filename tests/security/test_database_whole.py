"""A running server's SQLite database stays whole. Links in an attempt folder to the database file, to its
folder, and a hard link to it, read through every file route, are refused: had the server read the file
outside SQLite, it would have dropped its own locks on it, and the next ``cibench-lab export`` would have
checkpointed and deleted the write-ahead log the server still wrote to (the turns after it lost at the stop,
issue 26). Without the refusal the routes answer 200 with the file (the assertion that fails); the loss itself
did not show in this short scenario then, so the turn count checks the database whole, not the regression."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from cibench_lab.cli import main

REFUSED = (403, 404)


def link_the_database(folder: Path, db: Path) -> list[str]:
    """Links (and a hard link) to the database in the attempt folder; the paths that would read it."""
    os.symlink(db, folder / "db.sqlite")
    os.symlink(db.parent, folder / "dbdir")
    os.link(db, folder / "hard.sqlite")
    return ["db.sqlite", f"dbdir/{db.name}", "hard.sqlite"]


async def test_file_routes_and_an_export_leave_every_recorded_turn(
    jp_serverapp, jp_fetch, jp_root_dir, start_attempt, api, tmp_path
):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    db = Path(services.store.engine.url.database)
    b = await start_attempt(turn_cap=10)
    aid = b.attempt["id"]
    code, _ = await b.turn(0, "raise ValueError('turn 1')")
    assert code == 200
    folder = Path(jp_root_dir) / b.attempt["notebook_path"]
    for rel in link_the_database(folder.parent, db):
        path = f"{folder.parent.relative_to(jp_root_dir).as_posix()}/{rel}"
        for parts in (("api", "contents", path), ("files", path)):
            resp = await jp_fetch(*parts, raise_error=False)
            assert resp.code in REFUSED and b"SQLite format" not in resp.body, (parts, resp.code)
    out = tmp_path / "export.csv"
    url = f"sqlite:///{db}"
    assert await asyncio.to_thread(main, ["--db", url, "export", "--format", "csv", str(out)]) == 0
    for n in (2, 3):
        code, _ = await b.turn(0, f"raise ValueError('turn {n}')")
        assert code == 200
    code, turns = await api("GET", f"attempts/{aid}/turns")
    assert len(turns) == 3, turns
    b.close()
    services.store.engine.dispose()  # the server's connections closed, as at its stop
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        kept = con.execute("SELECT count(*) FROM turn WHERE attempt_id = ?", (aid,)).fetchone()[0]
    assert kept == 3
