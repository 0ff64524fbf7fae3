"""Faults with clear answers: unwritable folders and databases, full disks, huge inputs.

Tests run as root, and root ignores permission bits, so a fault is real: a read-only
bind mount or a size-limited tmpfs, made in a mount namespace of the process under
test (``unshare -m``), never on the machine's own mounts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import PROBE_ID, write_probe_task
from pgserver import free_port

from cibench_lab.store import Store

HERE = Path(__file__).parent.parent
CHILD_TIMEOUT = 120
TOKEN = "faults-test-token"


def in_namespace(setup: str, argv: list[str], after: str = "") -> list[str]:
    """``argv`` run after the shell commands ``setup`` inside a mount namespace of its own (and
    ``after`` it, when given, its exit status kept)."""
    unshare = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-rm"]
    run = f'set +e\n"$@"\nrc=$?\n{after}\nexit $rc' if after else 'exec "$@"'
    return [*unshare, "sh", "-ec", f"{setup}\n{run}", "sh", *argv]


def read_only(path: Path) -> str:
    return f"mount --bind -o ro {path} {path}"


def tmpfs(path: Path, size: str) -> str:
    return f"mount -t tmpfs -o size={size} tmpfs {path}"


def env_for(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(HERE.parent),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
    }


def server_argv(tmp_path: Path, root: Path, port: int, **options) -> list[str]:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"cibench_lab": True}}, "CIBenchLabApp": options})
    )
    return [
        sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}",
        f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={TOKEN}", "--ServerApp.allow_root=True",
    ]  # fmt: skip


def a_task(tmp_path: Path, data_bytes: int = 0) -> Path:
    tasks = tmp_path / "tasks"
    write_probe_task(tasks)
    if data_bytes:
        (tasks / "datasources" / "data" / "big.csv").write_bytes(b"x" * data_bytes)
    return tasks


def a_database(tmp_path: Path, folder: str = "db") -> str:
    (tmp_path / folder).mkdir()
    url = f"sqlite:///{tmp_path / folder / 'results.sqlite'}"
    Store(url).dispose()  # at head: opening it needs no write
    return url


def refusal(proc: subprocess.CompletedProcess) -> str:
    """The server exited 1 after one critical line from cibench-lab, and no traceback."""
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if "cibench-lab: " in line and line.startswith("[C ")]
    assert len(lines) == 1, proc.stderr[-3000:]
    return lines[0].split("cibench-lab: ", 1)[1]


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


# ---- at start: the server says what it cannot write, in one line, and exits ----------------------


def test_server_refuses_to_start_on_a_read_only_attempts_folder(tmp_path):
    root = tmp_path / "root"
    (root / "cibench-attempts").mkdir(parents=True)
    options = {"database_url": a_database(tmp_path), "task_dirs": [str(a_task(tmp_path))]}
    argv = server_argv(tmp_path, root, free_port(), **options)
    cmd = in_namespace(read_only(root / "cibench-attempts"), argv)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env_for(tmp_path))
    assert refusal(proc) == (
        f"cannot write the attempts folder {root / 'cibench-attempts'}: Read-only file system; "
        "make it writable or set CIBenchLabApp.attempts_dir to a writable folder"
    )


def test_server_refuses_to_start_on_a_read_only_database(tmp_path):
    url = a_database(tmp_path)
    root = tmp_path / "root"
    root.mkdir()
    argv = server_argv(tmp_path, root, free_port(), database_url=url, task_dirs=[str(a_task(tmp_path))])
    proc = subprocess.run(
        in_namespace(read_only(tmp_path / "db"), argv),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env=env_for(tmp_path),
    )
    line = refusal(proc)
    assert line.startswith(f"the results database at {url} cannot be written: "), line
    assert "readonly" in line or "unable to open" in line, line
    assert line.endswith("; make it writable or choose another database")


# ---- while it runs: a full disk fails the request in one line and leaves nothing behind ----------


def call(port: int, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}/cibench-lab/api/{path}", data=data, method=method)
    req.add_header("Authorization", f"token {TOKEN}")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@contextmanager
def serving(cmd: list[str], env: dict[str, str], port: int, log: Path):
    """A server process, ready to answer; stopped (by its own pid) afterwards."""
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + CHILD_TIMEOUT
        while call_ok(port) is False:
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def call_ok(port: int) -> bool:
    try:
        return call(port, "GET", "settings")[0] == 200
    except OSError:
        return False


def fill(folder: Path) -> None:
    """Write into ``folder`` until its file system is full."""
    with open(folder / "filler", "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass


def test_a_full_disk_fails_start_in_one_line_and_leaves_no_attempt(tmp_path):
    """Attempts folder on a 1 MB tmpfs, the task's data 2 MB: the copy fails, the row and the
    folder are removed; then the database's own disk fills: Start is refused before any row."""
    root, port = tmp_path / "root", free_port()
    (root / "cibench-attempts").mkdir(parents=True)
    db = tmp_path / "db"
    db.mkdir()
    url = f"sqlite:///{db / 'results.sqlite'}"
    options = {"database_url": url, "task_dirs": [str(a_task(tmp_path, data_bytes=2 * 2**20))]}
    setup = f"{tmpfs(root / 'cibench-attempts', '1m')}\n{tmpfs(db, '4m')}"
    cmd = in_namespace(setup, server_argv(tmp_path, root, port, **options))
    with serving(cmd, env_for(tmp_path), port, tmp_path / "server.log") as proc:
        code, body = call(port, "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})
        assert code == 503, body
        assert body["error"].startswith("cannot write the attempt folder cibench-attempts/leak_probe-")
        assert body["error"].endswith(": No space left on device; free space on its disk")
        assert call(port, "GET", "attempts") == (200, [])
        seen = Path(f"/proc/{proc.pid}/root") / root.relative_to("/") / "cibench-attempts"
        assert list(seen.iterdir()) == []  # the half-copied folder is gone
        fill(Path(f"/proc/{proc.pid}/root") / db.relative_to("/"))
        code, body = call(port, "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})
        assert code == 503, body
        assert body["error"] == (
            f"the results database at {url} cannot be written: database or disk is full; "
            "free space on its disk"
        )
        assert call(port, "GET", "attempts") == (200, [])
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


# ---- in-process server: a folder that breaks after start, a huge input ---------------------------


@pytest.mark.fast
async def test_a_start_whose_folder_cannot_be_made_leaves_no_attempt(jp_serverapp, api, jp_root_dir):
    (jp_root_dir / "cibench-attempts").write_text("a file where the folder should be")
    code, body = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})
    assert code == 503, body
    assert body["error"].startswith("cannot write the attempt folder cibench-attempts/leak_probe-")
    assert "CIBenchLabApp.attempts_dir" in body["error"] and "\n" not in body["error"]
    assert await api("GET", "attempts") == (200, [])


@pytest.mark.fast
async def test_a_multi_megabyte_input_is_not_echoed_back(jp_serverapp, api, caplog):
    huge = "x" * (5 * 2**20)
    code, body = await api("POST", "attempts", {"task_id": huge, "mode": "e2e"})
    assert code == 400 and body["error"].startswith("unknown task 'xxx") and body["error"].endswith("…")
    assert len(body["error"]) < 300
    code, body = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": huge})
    assert code == 400 and len(body["error"]) < 300, body
    assert huge not in caplog.text


# ---- the CLI: one line, exit 2 ---------------------------------------------------------------------


def clab(tmp_path: Path, setup: str, *args: str, after: str = "") -> subprocess.CompletedProcess:
    cmd = in_namespace(setup, [sys.executable, "-m", "cibench_lab.cli", *args], after)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env_for(tmp_path))


def test_cli_run_on_a_read_only_database_is_one_line(tmp_path):
    url = a_database(tmp_path)
    run = ("run", "--player", "reference", "--tasks", PROBE_ID, "--no-progress")
    tasks = ("--task-dir", str(a_task(tmp_path)))
    line = one_line_error(clab(tmp_path, read_only(tmp_path / "db"), *tasks, "--db", url, *run))
    assert line.startswith(f"error: the results database at {url} cannot be written: ")
    assert line.endswith("; make it writable or choose another database")
    report = clab(tmp_path, read_only(tmp_path / "db"), "--db", url, "report")
    assert "Traceback" not in report.stderr  # reading a read-only database is fine


def test_cli_import_into_a_read_only_or_full_folder_is_one_line(tmp_path):
    from test_task_loader import official_folder

    src = official_folder(tmp_path / "cibench_dataset")
    (src / "datasources" / "data" / "big.csv").write_bytes(b"x" * (2 * 2**20))
    into = tmp_path / "into"
    into.mkdir()
    line = one_line_error(clab(tmp_path, read_only(into), "tasks", "import", str(src), "--into", str(into)))
    assert line.startswith(f"error: {into}/") and line.endswith(
        ": Read-only file system; make it writable or choose another folder"
    )
    args = ("tasks", "import", str(src), "--into", str(into))
    proc = clab(tmp_path, tmpfs(into, "1m"), *args, after=f"ls -A -R {into}")
    line = one_line_error(proc)
    assert line.startswith(f"error: {into}/") and line.endswith(
        ": No space left on device; free space on its disk"
    )
    assert ".import-" not in proc.stdout and "big.csv" not in proc.stdout  # no half-written file stays


@pytest.mark.fast
def test_an_attempts_data_copy_skips_links_out_of_datasources(tmp_path, caplog):
    from cibench_lab.play.workspace import copy_data
    from cibench_lab.tasks.library import TaskLibrary

    data = a_task(tmp_path) / "datasources" / "data"
    (data / "ok.csv").write_text("a\n")
    (data / "passwd").symlink_to("/etc/passwd")
    (data / "same.csv").symlink_to(data / "ok.csv")
    task = TaskLibrary.load([tmp_path / "tasks"]).get(PROBE_ID)
    copy_data(task, tmp_path / "attempt")
    copied = sorted(p.relative_to(tmp_path / "attempt").as_posix() for p in (tmp_path / "attempt").rglob("*"))
    assert copied == ["data", "data/ok.csv", "data/same.csv"]
    assert not (tmp_path / "attempt" / "data" / "same.csv").is_symlink()
    assert f"not copying {data / 'passwd'}: a link out of" in caplog.text


@pytest.mark.fast
def test_a_database_in_a_missing_folder_is_one_line(tmp_path, capsys):
    from cibench_lab.cli import main

    url = f"sqlite:///{tmp_path / 'nowhere' / 'results.sqlite'}"
    assert main(["--db", url, "report"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: the results database at {url} cannot be opened: its folder {tmp_path / 'nowhere'} does not "
        "exist; create it or choose another database"
    )


RECORD_ON_A_FULL_DISK = """
import os, sys
from pathlib import Path
from sqlalchemy.exc import DBAPIError
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.play.turns import TurnRecord
from cibench_lab.grading import TurnOutput
from cibench_lab.store import Store
from cibench_lab.store.errors import write_fault
from cibench_lab.tasks.library import TaskLibrary

db, url = Path(sys.argv[1]), sys.argv[2]
attempts = Attempts(Store(url), TaskLibrary.load([sys.argv[3]]))
new = NewAttempt(attempts.library.get(sys.argv[4]), "e2e", "human", "p", PlaySettings(), {})
attempt = attempts.create(new)
with open(db / "filler", "wb") as fh:
    try:
        while True:
            fh.write(bytes(65536))
            fh.flush()
    except OSError:
        pass
try:
    attempts.record_turn(attempt, 0, TurnRecord(TurnOutput("x = 1"), msg_id="m1"))
except DBAPIError as err:
    print(write_fault(err, url))
os.remove(db / "filler")
print(len(attempts.turns(attempt, 0)), attempts.load(attempt)[0].status)
"""


def test_a_turn_recorded_on_a_full_disk_fails_in_one_line_and_writes_nothing(tmp_path):
    db = tmp_path / "db"
    db.mkdir()
    url = f"sqlite:///{db / 'results.sqlite'}"
    argv = [sys.executable, "-c", RECORD_ON_A_FULL_DISK, str(db), url, str(a_task(tmp_path)), PROBE_ID]
    proc = subprocess.run(
        in_namespace(tmpfs(db, "4m"), argv),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env=env_for(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == [
        f"the results database at {url} cannot be written: database or disk is full; free space on its disk",
        "0 open",  # the failed transaction left no turn behind, and the attempt as it was
    ]
