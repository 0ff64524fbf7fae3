"""Schema migrations of the results store, on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from pgserver import Cluster
from sqlalchemy import event, text

from cibench_lab.cli import main
from cibench_lab.store import Store, migrate, open_engine
from cibench_lab.store.locks import upgrade_lock
from cibench_lab.store.tables import Base

HERE = Path(__file__).parent.parent
FIXTURES = HERE / "fixtures" / "db"
TABLES = ("participant", "run", "attempt", "step", "turn", "event")
CHILD_TIMEOUT = 120


@pytest.fixture(scope="module")
def pg():
    with Cluster() as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_url(request, tmp_path):
    """The URL of a fresh, empty database of each kind."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'fresh.sqlite'}"
    pg = request.getfixturevalue("pg")
    return pg.url(pg.new_database())


def clab(*args: str, **kwargs) -> subprocess.CompletedProcess:
    """``cibench-lab ARGS`` in its own process (exit code, stdout, stderr as a person sees them)."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    return subprocess.run(
        [sys.executable, "-m", "cibench_lab.cli", *args],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env=env,
        **kwargs,
    )


def cli(capsys, *args: str) -> subprocess.CompletedProcess:
    """``cibench-lab ARGS`` in this process (quicker than :func:`clab`), as a CompletedProcess."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    """The CLI failed the way a person should see it: exit 2, one line, no traceback."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def schema_diffs(url: str) -> list:
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()


def revision_rows(url: str) -> list[str]:
    engine = open_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.scalars(text("SELECT version_num FROM alembic_version")))
    finally:
        engine.dispose()


# ---- the baseline -------------------------------------------------------------------


def test_upgraded_schema_matches_the_models(fresh_url):
    Store(fresh_url, auto_upgrade=True).dispose()
    assert schema_diffs(fresh_url) == []
    assert revision_rows(fresh_url) == [migrate.head()]


def test_baseline_creates_exactly_the_schema_of_the_code_before_migrations(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.sqlite'}"
    engine = open_engine(url)
    with upgrade_lock(engine) as conn:  # the baseline only: later revisions add to it
        command.upgrade(migrate.alembic_config(conn), migrate.BASELINE)
    engine.dispose()
    query = "SELECT type, name, sql FROM sqlite_master WHERE tbl_name != 'alembic_version' ORDER BY name"
    new = sqlite3.connect(tmp_path / "new.sqlite").execute(query).fetchall()
    old = sqlite3.connect(FIXTURES / "results-v0.sqlite").execute(query).fetchall()
    assert new == old


def test_at_head_a_start_writes_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    Store(url).dispose()
    engine = open_engine(url)
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda _c, _cur, sql, *_: statements.append(sql))
    migrate.ensure_schema(engine)
    assert statements and all(s.lstrip().upper().startswith(("SELECT", "PRAGMA")) for s in statements)
    assert migrate.upgrade(engine) is None  # the locked path re-checks and does nothing either
    engine.dispose()


# ---- a database made before migrations ------------------------------------------------


def as_event(ref: dict) -> dict:
    """An ``oracle_reference`` row as the ``oracle`` event row it was (its detail's JSON as written)."""
    detail = {"source": ref["source"], "step": ref["step"], "code": ref["code"]}
    detail = {k: v for k, v in detail.items() if v is not None}
    detail |= {"outputs": json.loads(ref["outputs"]), "error": bool(ref["error"]), "status": ref["status"]}
    row = {"id": ref["id"], "attempt_id": ref["attempt_id"], "kind": "oracle", "at": ref["at"]}
    return row | {"detail": json.dumps(detail)}


def all_rows(path: Path, like: dict | None = None) -> dict[str, list[dict]]:
    """Every row of the results tables; with ``like``, only the columns its rows have (columns a
    later revision added are new, not changed). Oracle reference runs, events before revision
    0006 and rows of ``oracle_reference`` since, are among the events as the events they were."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        rows = {t: [dict(r) for r in db.execute(f"SELECT * FROM {t} ORDER BY id")] for t in TABLES}
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'oracle_reference'").fetchone():
            moved = [as_event(dict(r)) for r in db.execute("SELECT * FROM oracle_reference")]
            rows["event"] = sorted(rows["event"] + moved, key=lambda r: r["id"])
    finally:
        db.close()
    if like is None:
        return rows
    return {t: [{k: r[k] for k in (like[t][0] if like[t] else r)} for r in rs] for t, rs in rows.items()}


def test_a_database_made_before_migrations_is_upgraded_with_every_result(tmp_path, capsys):
    path = tmp_path / "class.sqlite"
    shutil.copy(FIXTURES / "results-v0.sqlite", path)
    before = all_rows(path)
    assert {t: len(rows) for t, rows in before.items()} == {
        "participant": 3,
        "run": 2,
        "attempt": 4,
        "step": 32,
        "turn": 30,
        "event": 44,
    }
    assert main(["--db", f"sqlite:///{path}", "report", "--format", "json"]) == 0  # upgrades on start
    report = json.loads(capsys.readouterr().out)
    # results made before kernels were sandboxed are reported so; everything else as the old code did
    assert [r.pop("unsandboxed") for r in report["runs"]] == [1, 1]
    marked = [n for n in report["notes"] if "UNSANDBOXED" in n]
    assert len(marked) == 2
    report["notes"] = [n for n in report["notes"] if n not in marked]
    # and kept their steps' grades as they settled (recorded before grade_rule existed)
    assert [r.pop("grade_rule") for r in report["runs"] + report["leaderboard"]] == ["settling"] * 3
    report["notes"].remove("grade rule: settling")
    assert report == json.loads((FIXTURES / "report-v0.json").read_text())
    assert all_rows(path, like=before) == before
    assert revision_rows(f"sqlite:///{path}") == [migrate.head()]
    assert schema_diffs(f"sqlite:///{path}") == []


def _v0_task_dir(root: Path) -> Path:
    """The task the v0 results were recorded on: ``cibench_generation/pandas/tips_ratio_by_group``,
    then a copy of the template task without ``step_types`` (the built-in generation split no
    longer holds copies of template tasks)."""
    import nbformat

    from cibench_lab.tasks.library import builtin_dir

    builtin = builtin_dir()
    nb = nbformat.read(builtin / "cibench_template" / "pandas" / "tips_ratio_by_group.ipynb", as_version=4)
    for key in ("step_types", "modules"):
        nb.metadata.pop(key)
    (root / "cibench_generation" / "pandas").mkdir(parents=True)
    nbformat.write(nb, root / "cibench_generation" / "pandas" / "tips_ratio_by_group.ipynb")
    (root / "datasources" / "data").mkdir(parents=True)
    shutil.copy(builtin / "datasources" / "data" / "tips.csv", root / "datasources" / "data" / "tips.csv")
    return root


def test_the_app_reads_upgraded_results(tmp_path):
    from cibench_lab.play.attempt import Attempts
    from cibench_lab.tasks.library import TaskLibrary, default_task_dirs
    from cibench_lab.views.attempt import attempt_view

    path = tmp_path / "class.sqlite"
    shutil.copy(FIXTURES / "results-v0.sqlite", path)
    library = TaskLibrary.load([*default_task_dirs(), _v0_task_dir(tmp_path / "v0-tasks")])
    attempts = Attempts(Store(f"sqlite:///{path}"), library)
    (alice,) = attempts.list_for("alice")
    view = attempt_view(attempts, alice["id"], "alice")
    assert [s["outcome"] for s in view["steps"]] == ["next", "gave_up", None]
    assert [t.error for t in attempts.turns(alice["id"], 1)] == [True]
    assert attempts.list_for("bob")[0]["mode"] == "oracle"
    attempts.store.dispose()


def test_postgresql_database_made_by_create_all_is_stamped_and_kept(pg):
    url = pg.url(pg.new_database())
    engine = open_engine(url)
    with engine.begin() as conn:  # the tables the code before migrations made: the baseline's, unstamped
        command.upgrade(migrate.alembic_config(conn), migrate.BASELINE)
        conn.execute(text("DROP TABLE alembic_version"))
        conn.execute(text("INSERT INTO participant (name, created_at) VALUES ('carol', now())"))
    engine.dispose()
    proc = clab("db", "upgrade", "--database-url", url)
    assert proc.returncode == 0, proc.stderr
    assert "upgraded from unversioned" in proc.stdout
    assert revision_rows(url) == [migrate.head()]
    engine = open_engine(url)
    with engine.connect() as conn:
        assert list(conn.scalars(text("SELECT name FROM participant"))) == ["carol"]
    engine.dispose()


# ---- serialized upgrades --------------------------------------------------------------

CHILD = """
import pathlib, sys, time
from cibench_lab.store import Store, migrate

url, go = sys.argv[1], pathlib.Path(sys.argv[2])
did = []
upgrade = migrate.upgrade
migrate.upgrade = lambda engine: did.append(upgrade(engine)) or did[-1]
print("ready", flush=True)
while not go.exists():
    time.sleep(0.002)
Store(url, auto_upgrade=True).dispose()  # the server's start path
print("upgraded" if did and did[0] is not None else "at head", flush=True)
"""


def test_three_starts_at_once_on_one_fresh_database(fresh_url, tmp_path):
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    cmd = [sys.executable, "-c", CHILD, fresh_url, str(go)]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for _ in range(3)
    ]
    try:
        for p in procs:  # all imported and waiting: then they open the store together
            assert p.stdout.readline().strip() == "ready"
        go.touch()
        outs = [p.communicate(timeout=CHILD_TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0, 0, 0], [err for _, err in outs]
    assert sorted(out.strip() for out, _ in outs) == ["at head", "at head", "upgraded"]
    assert revision_rows(fresh_url) == [migrate.head()]
    assert schema_diffs(fresh_url) == []


# ---- what a person sees ----------------------------------------------------------------


def test_cli_commands(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    assert cli(capsys, "db", "current", "--database-url", url).stdout.startswith("empty (head is")
    up = clab("db", "upgrade", "--database-url", url)
    assert up.returncode == 0 and f"upgraded from empty to {migrate.head()}" in up.stdout
    again = cli(capsys, "--db", url, "db", "upgrade")  # the global --db works too
    assert again.returncode == 0 and "nothing to do" in again.stdout
    assert cli(capsys, "db", "current", "--database-url", url).stdout.strip() == f"{migrate.head()} (head)"


def test_a_newer_database_is_refused_in_one_line(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    Store(url).dispose()
    engine = open_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    for args in (("--db", url, "report"), ("db", "upgrade", "--database-url", url)):
        line = one_line_error(clab(*args))
        assert line == (
            f"error: the results database at {url} is at revision 9999, newer than this cibench-lab "
            f"(head {migrate.head()}): upgrade cibench-lab"
        )


def unprivileged() -> list[str]:
    """A command prefix under which file permissions bind (as root: without the overriding capabilities)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv, "setpriv (util-linux) is needed to test permissions as root"
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


def clab_unprivileged(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    cmd = [*unprivileged(), sys.executable, "-m", "cibench_lab.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env)


@pytest.mark.parametrize("read_only", ["file", "folder"])
def test_a_database_that_cannot_be_written_is_refused_in_one_line(tmp_path, read_only):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "class.sqlite"
    shutil.copy(FIXTURES / "results-v0.sqlite", path)  # needs stamping: a write
    path.chmod(0o444 if read_only == "file" else 0o644)
    folder.chmod(0o555)
    try:
        line = one_line_error(clab_unprivileged("--db", f"sqlite:///{path}", "report"))
    finally:
        folder.chmod(0o755)
    assert line.startswith(f"error: the results database at sqlite:///{path} cannot be written: ")
    assert "readonly" in line or "unable to open" in line


def test_postgresql_not_at_head_is_refused_naming_the_command(pg, capsys):
    url = pg.url(pg.new_database(), password="s3cret")
    shown = url.replace("s3cret", "***")
    run = ("run", "--player", "reference", "--tasks", "cibench_generation/pandas/tips_ratio_by_group")
    for args in (("--db", url, "report"), ("--db", url, *run)):
        line = one_line_error(cli(capsys, *args))
        assert "s3cret" not in line
        assert line == (
            f"error: the results database at {shown} is at revision empty, this cibench-lab needs "
            f"{migrate.head()}: run `cibench-lab db upgrade --database-url {shown}`"
        )
    assert cli(capsys, "db", "upgrade", "--database-url", url).returncode == 0
    assert cli(capsys, "db", "current", "--database-url", url).stdout.strip() == f"{migrate.head()} (head)"


def test_postgresql_without_create_rights_is_refused_in_one_line(pg, capsys):
    database = pg.new_database()
    pg.execute("DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    line = one_line_error(cli(capsys, "db", "upgrade", "--database-url", pg.url(database, user="reader")))
    assert line.startswith(
        f"error: the results database at {pg.url(database, user='reader')} cannot be written: "
    )
    assert "permission denied" in line
