"""The server's start on a results database: upgrade, or refuse with one line and exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pgserver import Cluster, free_port
from sqlalchemy import text

from cibench_lab.store import Store, migrate, open_engine

HERE = Path(__file__).parent.parent
SERVER_TIMEOUT = 120


@pytest.fixture(scope="module")
def pg():
    with Cluster() as cluster:
        yield cluster


def serve(tmp_path: Path, **options) -> subprocess.CompletedProcess:
    """``jupyter server`` with cibench-lab and these CIBenchLabApp options; waits for it to exit."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"cibench_lab": True}}, "CIBenchLabApp": options})
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE.parent),
        "JUPYTER_CONFIG_DIR": str(config),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }
    cmd = [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={free_port()}"]
    cmd += [f"--ServerApp.root_dir={tmp_path}", "--ServerApp.open_browser=False"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=SERVER_TIMEOUT, env=env, cwd=tmp_path)


def refusal(proc: subprocess.CompletedProcess) -> str:
    """The server exited 1 after one critical line from cibench-lab, and no traceback."""
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if "cibench-lab: " in line and line.startswith("[C ")]
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0].split("cibench-lab: ", 1)[1]


def test_server_refuses_a_postgresql_database_not_at_head(tmp_path, pg):
    url = pg.url(pg.new_database(), password="s3cret")
    shown = url.replace("s3cret", "***")
    line = refusal(serve(tmp_path, database_url=url))
    assert line == (
        f"the results database at {shown} is at revision empty, this cibench-lab needs {migrate.head()}: "
        f"run `cibench-lab db upgrade --database-url {shown}` "
        "(or start with --CIBenchLabApp.db_auto_upgrade=True)"
    )
    assert migrate.check(open_engine(url))[0] is None  # nothing written


def test_server_refuses_a_newer_database(tmp_path):
    url = f"sqlite:///{tmp_path / 'r.sqlite'}"
    Store(url).dispose()
    engine = open_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    line = refusal(serve(tmp_path, database_url=url))
    assert line.endswith(
        f"is at revision 9999, newer than this cibench-lab (head {migrate.head()}): upgrade cibench-lab"
    )


@pytest.fixture
def pg_url(pg):
    return pg.url(pg.new_database())


@pytest.fixture
def jp_server_config(jp_server_config, pg_url):
    jp_server_config["CIBenchLabApp"].update({"database_url": pg_url, "db_auto_upgrade": True})
    return jp_server_config


async def test_server_upgrades_postgresql_when_asked(api, pg_url):
    code, body = await api("GET", "attempts")
    assert (code, body) == (200, [])
    assert migrate.check(open_engine(pg_url))[0] == migrate.head()
