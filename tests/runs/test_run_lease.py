"""Runs that refuse politely: one process per run name (a lease row with a heartbeat), and a
participant created once however many processes create it at once."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from sqlalchemy import event, select, update

from cibench_lab.play.attempt import participant_id
from cibench_lab.runs.lease import STALE_ENV, Lease, RunBusy
from cibench_lab.runs.local import _leased
from cibench_lab.store import Store
from cibench_lab.store.tables import Participant, RunLease

HERE = Path(__file__).parent.parent
HOLD = "cibench_template/pandas/hold_{}"


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    yield s
    s.dispose()


def _age(store: Store, name: str, seconds: float) -> None:
    """Make the lease's last heartbeat ``seconds`` old."""
    then = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - dt.timedelta(seconds=seconds)
    with store.session() as s:
        s.execute(update(RunLease).where(RunLease.name == name).values(heartbeat_at=then))


# ---- the lease, in one process ------------------------------------------------------------


@pytest.mark.fast
def test_a_live_lease_refuses_a_second_holder_and_names_the_first(store):
    first = Lease(store, "r1", holder="hostA:11")
    first.take()
    with pytest.raises(RunBusy) as err:
        Lease(store, "r1", holder="hostB:22").take()
    message = str(err.value)
    assert message.startswith("run r1 is being played by hostA:11 since ")
    assert message.endswith(" UTC; wait, or use another --run name") and "\n" not in message
    Lease(store, "r2", holder="hostB:22").take()  # another name is free
    first.release()
    Lease(store, "r1", holder="hostB:22").take()  # released: free again


@pytest.mark.fast
def test_a_stale_lease_is_taken_over_and_its_old_holder_knows(store):
    old = Lease(store, "r", holder="dead:1", stale=60)
    old.take()
    _age(store, "r", 30)
    with pytest.raises(RunBusy):
        Lease(store, "r", holder="new:2", stale=60).take()
    _age(store, "r", 61)
    new = Lease(store, "r", holder="new:2", stale=60)
    new.take()
    assert not old.renew() and new.renew()
    old.release()  # releases only its own lease
    assert new.holder_now() == "new:2"


@pytest.mark.fast
def test_a_run_whose_lease_is_taken_over_stops(store):
    lease = Lease(store, "r", holder="me:1", stale=0.6)  # renewed every 0.1 s
    lease.take()

    async def play() -> None:
        with store.session() as s:  # another process takes the lease over
            s.execute(update(RunLease).values(holder="other:2", token="t" * 32))
        await asyncio.sleep(30)

    started = time.monotonic()
    with pytest.raises(RunBusy, match="run r was taken over by other:2"):
        asyncio.run(_leased(lease, play()))
    assert time.monotonic() - started < 5


@pytest.mark.fast
def test_participant_creation_survives_a_concurrent_insert(store, tmp_path):
    """Between this process's lookup (nothing) and its insert, another inserts the name."""
    raced = []

    def insert_elsewhere(conn, cursor, statement, *_):
        if statement.lstrip().upper().startswith("SELECT") and "participant" in statement and not raced:
            raced.append(True)
            other = sqlite3.connect(tmp_path / "r.sqlite")
            other.execute("INSERT INTO participant (name, created_at) VALUES ('p', '2026-01-01 00:00:00')")
            other.commit()
            other.close()

    event.listen(store.engine, "after_cursor_execute", insert_elsewhere)
    pid = participant_id(store, "p")
    assert raced
    with store.session() as s:
        assert s.scalars(select(Participant.id).where(Participant.name == "p")).all() == [pid]
    assert participant_id(store, "p") == pid


@pytest.fixture(scope="module")
def pg():
    from pgserver import Cluster

    with Cluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def shared(request, tmp_path):
    """A store of each kind that threads share as processes share a database."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    else:
        pg = request.getfixturevalue("pg")
        url = pg.url(pg.new_database())
    s = Store(url, auto_upgrade=True)
    yield s
    s.dispose()


def race(n: int, fn) -> list:
    """``fn(i)`` in ``n`` threads released at once: what each returned or raised."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def one(i: int) -> None:
        barrier.wait()
        try:
            results[i] = fn(i)
        except Exception as err:
            results[i] = err

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


@pytest.mark.fast
def test_connections_opening_one_new_sqlite_file_at_once_all_open_it(tmp_path):
    """Two runs started together on a new database: both switch it to WAL; without the retry
    SQLite answered one of them 'database is locked' about one round in ten."""
    for n in range(25):
        url = f"sqlite:///{tmp_path / f'new{n}.sqlite'}"
        opened = race(6, lambda i, url=url: Store(url))
        errors = [str(s) for s in opened if not isinstance(s, Store)]
        for s in opened:
            if isinstance(s, Store):
                s.dispose()
        assert not errors, errors


@pytest.mark.parametrize("stale", [False, True], ids=["free", "stale"])
def test_racing_for_a_lease_exactly_one_wins(shared, stale):
    if stale:
        Lease(shared, "r", holder="dead:0").take()
        _age(shared, "r", 120)
    results = race(6, lambda i: Lease(shared, "r", holder=f"h:{i}").take() or i)
    won = [r for r in results if isinstance(r, int)]
    assert len(won) == 1 and all(isinstance(r, RunBusy) for r in results if r not in won), results
    assert Lease(shared, "r").holder_now() == f"h:{won[0]}"


def test_racing_to_create_a_participant_makes_one(shared):
    ids = race(6, lambda i: participant_id(shared, "racer"))
    assert len(set(ids)) == 1 and isinstance(ids[0], int), ids
    with shared.session() as s:
        assert s.scalars(select(Participant.id).where(Participant.name == "racer")).all() == ids[:1]


# ---- two `cibench-lab run` processes ---------------------------------------------------------


def write_hold_tasks(root: Path, flag: Path) -> None:
    """Two tasks whose second step waits while ``flag`` exists (a run the test holds open)."""
    wait = f"import os, time\nwhile os.path.exists({str(flag)!r}):\n    time.sleep(0.1)\nprint('go')"
    for name in ("a", "b"):
        cells = [
            new_markdown_cell("Make `x` equal 1."),
            new_code_cell("x = 1"),
            new_markdown_cell("Wait, then print go."),
            new_code_cell(wait),
        ]
        nb = new_notebook(cells=cells)
        nb.metadata["step_types"] = ["exec", "exec"]
        nb.metadata["cibench_lab"] = {"schema_version": 1, "title": f"Hold {name}", "language": "en"}
        path = root / f"{HOLD.format(name)}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


@pytest.fixture
def held(tmp_path):
    """(the run command, the flag that holds its second steps open)."""
    flag = tmp_path / "hold"
    flag.touch()
    tasks = tmp_path / "tasks"
    write_hold_tasks(tasks, flag)
    db = f"sqlite:///{tmp_path / 'runs.sqlite'}"
    cmd = [sys.executable, "-m", "cibench_lab.cli", "--task-dir", str(tasks), "--db", db, "run"]
    cmd += ["--player", "reference", "--tasks", HOLD.format("*"), "--no-progress", "--timeout", "120"]
    yield cmd, flag
    flag.unlink(missing_ok=True)


def spawn(cmd: list[str], run: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*cmd, "--run", run],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(HERE.parent), **env},
        start_new_session=True,
    )


def first_to_exit(procs: list[subprocess.Popen], timeout: float = 120) -> subprocess.Popen:
    deadline = time.time() + timeout
    while time.time() < deadline:
        for p in procs:
            if p.poll() is not None:
                return p
        time.sleep(0.1)
    raise AssertionError("no run exited")


def attempts_of(db: Path, run: str) -> list[tuple[str, str, str]]:
    """(task, attempt, status) of the run's attempts; none while the database is being made."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        q = "SELECT a.task_id, a.id, a.status FROM attempt a JOIN run r ON r.id = a.run_id WHERE r.name = ?"
        return sorted(conn.execute(q, (run,)).fetchall())
    except sqlite3.OperationalError:  # no tables yet
        return []
    finally:
        conn.close()


def busy_line(proc: subprocess.Popen, holder_pid: int) -> str:
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    holder = f"{socket.gethostname()}:{holder_pid}"
    assert lines[0].startswith(f"error: run same is being played by {holder} since "), err
    assert lines[0].endswith(" UTC; wait, or use another --run name"), err
    return lines[0]


def test_two_runs_on_one_name_one_plays_the_other_exits_2(held, tmp_path):
    cmd, flag = held
    procs = [spawn(cmd, "same"), spawn(cmd, "same")]
    try:
        loser = first_to_exit(procs)
        winner = procs[1 - procs.index(loser)]
        busy_line(loser, winner.pid)
        flag.unlink()
        out, err = winner.communicate(timeout=180)
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
    assert winner.returncode == 0, err
    runs = attempts_of(tmp_path / "runs.sqlite", "same")
    assert [(t, st) for t, _, st in runs] == [(HOLD.format("a"), "done"), (HOLD.format("b"), "done")]


def test_a_run_killed_with_9_is_taken_over_once_its_heartbeat_is_stale(held, tmp_path):
    cmd, flag = held
    db = tmp_path / "runs.sqlite"
    holder = spawn(cmd, "same")
    try:
        deadline = time.time() + 120
        while not any(st == "open" for *_, st in attempts_of(db, "same")):
            assert time.time() < deadline and holder.poll() is None, holder.stderr
            time.sleep(0.2)
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
        (was_open,) = [i for _, i, st in attempts_of(db, "same") if st == "open"]
        killed_at = time.time()
        busy_line(spawn(cmd, "same"), holder.pid)  # its heartbeat is fresh: still its run
        flag.unlink()
        time.sleep(max(0.0, killed_at + 2.5 - time.time()))
        after = spawn(cmd, "same", **{STALE_ENV: "2"})
        out, err = after.communicate(timeout=180)
    finally:
        if holder.poll() is None:
            os.killpg(holder.pid, signal.SIGKILL)
    assert after.returncode == 0, err
    assert "resuming attempt" in err
    runs = attempts_of(db, "same")
    assert [(t, st) for t, _, st in runs] == [(HOLD.format("a"), "done"), (HOLD.format("b"), "done")]
    assert runs[0][1] == was_open  # resumed, not played again
