"""The task kernel's sandbox (bubblewrap): what a kernel can and cannot reach."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_runtime_dir

import cibench_lab
from cibench_lab.kernels import sandbox
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.kernels.provisioner import with_flags
from cibench_lab.kernels.sandbox import ATTEMPT_DIR, SandboxPolicy, SandboxSetting, bwrap_argv, sandbox_env
from cibench_lab.kernels.spec import LAUNCHER, PROVISIONER, kernelspec_dict
from cibench_lab.tasks.library import builtin_dir

CANARY = "CIBENCH_CANARY_SECRET"
CANARY_VALUE = "canary-3f9a1c"


def _policy(tmp_path: Path, network: bool = False) -> SandboxPolicy:
    return SandboxPolicy(tmp_path / "a", tmp_path / "rt", (Path(sys.prefix),), network)


@pytest.mark.fast
def test_the_argv_unshares_everything_and_binds_the_attempt_at_one_path(tmp_path):
    argv = bwrap_argv(_policy(tmp_path), ["python", "-m", "ipykernel_launcher"])
    assert argv[1:6] == ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    assert "--share-net" not in argv
    at = argv.index(str(tmp_path / "a"))
    assert argv[at - 1 : at + 4] == ["--bind", str(tmp_path / "a"), ATTEMPT_DIR, "--chdir", ATTEMPT_DIR]
    assert argv[argv.index("--") + 1 :] == ["python", "-m", "ipykernel_launcher"]
    assert "--share-net" in bwrap_argv(_policy(tmp_path, network=True), ["true"])


@pytest.mark.fast
def test_the_environment_holds_the_kernelspec_variables_only(tmp_path):
    environ = {CANARY: CANARY_VALUE, "JUPYTER_RUNTIME_DIR": "/x", "OMP_NUM_THREADS": "1", "LANG": "C.UTF-8"}
    env = sandbox_env(environ, _policy(tmp_path), {"OMP_NUM_THREADS": "1"})
    assert CANARY not in env and "JUPYTER_RUNTIME_DIR" not in env
    assert env["OMP_NUM_THREADS"] == "1" and env["LANG"] == "C.UTF-8" and env["HOME"] == sandbox.HOME_DIR


@pytest.mark.fast
def test_an_openblas_core_type_reaches_the_sandbox_and_other_blas_variables_do_not(tmp_path):
    environ = {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_VERBOSE": "2"}
    env = sandbox_env(environ, _policy(tmp_path), {"OMP_NUM_THREADS": "1"})
    assert env["OPENBLAS_CORETYPE"] == "Prescott" and "OPENBLAS_VERBOSE" not in env


@pytest.mark.fast
def test_the_kernelspec_is_sandboxed_and_interrupted_by_message():
    spec = kernelspec_dict("/py")
    assert spec["metadata"]["kernel_provisioner"]["provisioner_name"] == PROVISIONER
    assert spec["interrupt_mode"] == "message"
    cmd = with_flags(["/py", "-m", LAUNCHER, "-f", "c.json"], SandboxSetting(network=True))
    limits = ["--limits", SandboxSetting().limits.flag()]
    assert cmd == ["/py", "-m", LAUNCHER, "--sandbox", "--network", *limits, "-f", "c.json"]
    cmd = with_flags(["/py", "-m", LAUNCHER, "-f", "c.json"], SandboxSetting(), "/srv/a")
    assert cmd == ["/py", "-m", LAUNCHER, "--sandbox", "--attempts-root", "/srv/a", *limits, "-f", "c.json"]


@pytest.mark.fast
def test_only_a_folder_inside_the_attempts_folder_is_bound(tmp_path):
    root = tmp_path / "cibench-attempts"
    (root / "t-1234").mkdir(parents=True)
    assert sandbox.attempt_folder(root / "t-1234", str(root)) == (root / "t-1234").resolve()
    assert sandbox.attempt_folder(root, str(root)) is None
    assert sandbox.attempt_folder(tmp_path, str(root)) is None
    assert sandbox.attempt_folder(tmp_path, "") == tmp_path  # headless: the executor's folder
    argv = bwrap_argv(SandboxPolicy(None, None, ()), ["true"])
    assert argv[argv.index("--chdir") - 2 : argv.index("--chdir")] == ["--tmpfs", ATTEMPT_DIR]


@pytest.mark.fast
def test_the_package_is_hidden_when_it_lies_in_the_kernels_environment():
    package = Path(cibench_lab.__file__).resolve().parent
    assert package in sandbox.hidden_dirs((package.parent,))


@pytest.mark.fast
def test_a_missing_bwrap_is_named_in_one_line(monkeypatch):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    problem = sandbox.check_sandbox()
    assert problem is not None and "\n" not in problem
    assert "apt-get install bubblewrap" in problem and "--no-sandbox" in problem


PROBE = """
import json, os, socket
def readable(p):
    try:
        if os.path.isdir(p):
            os.listdir(p)
        else:
            open(p, 'rb').read(1)
        return True
    except OSError:
        return False
def connects(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, port))
        return True
    except OSError:
        return False
    finally:
        s.close()
try:
    import cibench_lab
    imported = True
except ImportError:
    imported = False
open('written.txt', 'w').write('from the kernel')
env_files = [open(f'/proc/{p}/environ', 'rb').read().decode() for p in (1, os.getppid(), os.getpid())]
print(json.dumps({
    'cwd': os.getcwd(),
    'readable': {p: readable(p) for p in PATHS},
    'environ': json.dumps(dict(os.environ)) + ''.join(env_files),
    'imported': imported,
    'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
    'connects': {f'{h}:{p}': connects(h, p) for h, p in ADDRESSES},
}))
"""


@pytest.fixture
def listening():
    """A TCP port on this machine that accepts connections (the server's, a database's)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    yield server.getsockname()[1]
    server.close()


def _secret_paths(tmp_path: Path) -> list[str]:
    db = tmp_path / "results.sqlite"
    db.write_bytes(b"SQLite format 3\0")
    other = tmp_path / "other-attempt"
    other.mkdir()
    (other / "notes.txt").write_text("another player's work")
    notebook = next(builtin_dir().rglob("*.ipynb"))
    imported = tmp_path / "imported" / "cibench_template" / "pandas" / "t.ipynb"
    imported.parent.mkdir(parents=True)
    imported.write_text("{}")
    runtime = Path(jupyter_runtime_dir())
    runtime.mkdir(parents=True, exist_ok=True)
    repo = Path(cibench_lab.__file__).resolve().parent
    return [str(p) for p in (db, other / "notes.txt", notebook, imported, runtime, repo)]


def test_a_sandboxed_kernel_reaches_only_its_attempt(tmp_path, monkeypatch, listening):
    monkeypatch.setenv(CANARY, CANARY_VALUE)
    paths = _secret_paths(tmp_path)
    attempt = tmp_path / "attempt"
    attempt.mkdir()
    addresses = [("127.0.0.1", listening), ("10.255.255.1", 80), ("1.1.1.1", 53)]
    code = f"PATHS = {[*paths, ATTEMPT_DIR]!r}\nADDRESSES = {addresses!r}\n{PROBE}"
    facts = asyncio.run(_probe(attempt, code))
    assert facts["cwd"] == ATTEMPT_DIR
    assert (attempt / "written.txt").read_text() == "from the kernel"
    assert facts["readable"].pop(ATTEMPT_DIR), "the probe cannot read even its own folder"
    assert not any(facts["readable"].values()), facts["readable"]
    assert CANARY not in facts["environ"] and CANARY_VALUE not in facts["environ"]
    assert "JUPYTER" not in facts["environ"] and "JPY_" not in facts["environ"]
    assert not facts["imported"], "cibench_lab is importable inside the sandbox"
    assert len(facts["pids"]) <= 3, facts["pids"]  # bubblewrap's init, the kernel, maybe a child
    assert not any(facts["connects"].values()), facts["connects"]


async def _probe(attempt: Path, code: str) -> dict:
    executor = KernelExecutor(attempt, timeout=60)
    await executor.start()
    try:
        ex = await executor.run(code)
        assert not ex.error, ex.outputs
        return json.loads(ex.outputs[0]["text"])
    finally:
        await executor.shutdown()


ORPHAN = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)  # {}'], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print('spawned')"  # noqa: E501


def test_an_orphan_dies_with_its_kernel_and_pyplot_imports_quietly(tmp_path):
    marker = f"orphan-{os.getpid()}-{tmp_path.name}"
    quiet = asyncio.run(_orphan_then_restart(tmp_path, marker))
    assert quiet == [], f"the first pyplot import printed: {quiet}"
    assert not _running(marker), "a setsid() orphan outlived its kernel's restart"


async def _orphan_then_restart(folder: Path, marker: str) -> list:
    executor = KernelExecutor(folder, timeout=60)
    await executor.start()
    try:
        pyplot = await executor.run("import matplotlib.pyplot as plt")
        ex = await executor.run(ORPHAN.format(marker))
        assert ex.outputs and "spawned" in ex.outputs[0]["text"]
        assert _running(marker)
        await executor.restart()
        await asyncio.sleep(0.5)
        return pyplot.outputs
    finally:
        await executor.shutdown()


def _running(marker: str) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


@pytest.fixture
def _sandbox_setting(monkeypatch):
    """Commands set the sandbox setting in this process's environment: restored after the test."""
    for var in (sandbox.ENABLED_VAR, sandbox.NETWORK_VAR):
        monkeypatch.setenv(var, "")


@pytest.mark.fast
def test_run_and_the_server_refuse_to_start_without_bwrap(tmp_path, monkeypatch, capsys, _sandbox_setting):
    from cibench_lab.app import CIBenchLabApp
    from cibench_lab.cli import main

    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    assert main(["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "run", "--tasks", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "apt-get install bubblewrap" in err
    with pytest.raises(SystemExit):
        CIBenchLabApp()._start_sandbox()


def test_run_records_the_sandbox_and_report_marks_an_unsandboxed_run(tmp_path, capsys, _sandbox_setting):
    from conftest import PROBE_ID, write_probe_task
    from sqlalchemy import select

    from cibench_lab.cli import main
    from cibench_lab.store import Store
    from cibench_lab.store.tables import Attempt

    write_probe_task(tmp_path / "tasks")
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    common = ["--db", db, "--task-dir", str(tmp_path / "tasks"), "run", "--tasks", PROBE_ID, "--no-progress"]
    assert main([*common, "--run", "boxed"]) == 0
    assert main([*common, "--run", "open", "--no-sandbox"]) == 0
    with Store(db).session() as s:
        recorded = {a.run_id: a.environment["sandbox"] for a in s.scalars(select(Attempt))}
    assert sorted(r["enabled"] for r in recorded.values()) == [False, True]
    assert all(r["network"] is False for r in recorded.values())
    capsys.readouterr()
    assert main(["--db", db, "report", "boxed", "open", "--format", "json"]) == 0
    runs = {r["run"]: r["unsandboxed"] for r in json.loads(capsys.readouterr().out)["runs"]}
    assert runs == {"boxed": 0, "open": 1}


#: With tests/tasks/test_task_verify.py's five: one task of each of the ten libraries, replayed sandboxed.
OTHER_LIBRARIES = [
    "cibench_template/lightgbm/carseat_sales_lgbm",
    "cibench_template/nltk/authorship_sentences_nb",
    "cibench_template/opencv/astronaut_features",
    "cibench_template/pytorch/breast_cancer_mlp",
    "cibench_template/tensorflow/breast_cancer_keras_classifier",
]


def test_the_other_libraries_replay_their_references_sandboxed(_sandbox_setting):
    from cibench_lab.authoring.verify import verify_tasks
    from cibench_lab.tasks.library import TaskLibrary

    assert sandbox.current().enabled
    lib = TaskLibrary.load([builtin_dir()])
    verdicts = asyncio.run(verify_tasks([lib.get(t) for t in OTHER_LIBRARIES], jobs=2))
    for v in verdicts:
        assert v.ok, (v.task_id, v.error, v.drifts)
        # TensorFlow's import logs a timestamped line to fd 2, which ipykernel captures outside pytest
        assert not v.changed or "/tensorflow/" in v.task_id, (v.task_id, v.changed)


KERNEL_FACTS = """
import importlib.metadata as m, json, os, sys
try:
    import cibench_lab
    imported = True
except ImportError:
    imported = False
print(json.dumps({
    'executable': sys.executable,
    'prefix': sys.prefix,
    'versions': {n: m.version(n) for n in NAMES},
    'imported': imported,
    'server_packages': os.path.isdir(SERVER_PACKAGES) and bool(os.listdir(SERVER_PACKAGES)),
}))
"""


@pytest.mark.parametrize("boxed", [True, False], ids=["sandboxed", "unsandboxed"])
def test_a_kernel_runs_the_kernel_environment_at_its_pins(tmp_path, monkeypatch, _sandbox_setting, boxed):
    from test_kernel_python import kernel_env, pins

    python = kernel_env()
    sandbox.configure(SandboxSetting(enabled=boxed))
    # the server's own PYTHONPATH (here: the repository) must not reach another Python's kernel
    monkeypatch.setenv("PYTHONPATH", str(Path(cibench_lab.__file__).resolve().parents[1]))
    server_packages = next(p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir())
    names = ["numpy", "pandas", "matplotlib", "tensorflow-cpu", "lightgbm", "torch", "scikit-learn"]
    code = f"NAMES = {names!r}\nSERVER_PACKAGES = {str(server_packages)!r}\n{KERNEL_FACTS}"
    (tmp_path / "a").mkdir()
    facts = asyncio.run(_probe(tmp_path / "a", code))
    assert facts["executable"] == python
    assert Path(facts["prefix"]) == Path(python).parents[1]
    locked = pins()
    assert facts["versions"] == {n: locked[n] for n in names}
    assert not facts["imported"], "cibench_lab is importable in the kernel"
    if boxed:  # the server's environment is not bound, only the kernel's
        assert not facts["server_packages"], f"{server_packages} is readable in the sandbox"
