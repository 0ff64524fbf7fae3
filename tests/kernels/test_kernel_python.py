"""The task kernel's own Python: which one kernels run, its lock file, what it says it holds."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cibench_lab.kernels import interpreter
from cibench_lab.kernels.environment import environment
from cibench_lab.kernels.interpreter import (
    PYTHON_VAR,
    KernelPythonError,
    describe,
    kernel_env_python,
    kernel_python,
)
from cibench_lab.kernels.launch import PYTHON_FLAG, unsandboxed_env
from cibench_lab.kernels.spec import kernelspec_dict

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "cibench_lab" / "kernels" / "envs" / "constraints.txt"
REQUIREMENTS = REPO / "cibench_lab" / "kernels" / "envs" / "requirements.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")


def _names(path: Path) -> list[str]:
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return [line for line in lines if line]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    found = {}
    for line in _names(LOCK):
        match = PIN.match(line)
        assert match, f"{LOCK.name}: not an exact pin: {line!r}"
        found[_canonical(match[1])] = match[2]
    return found


@pytest.mark.fast
def test_every_requirement_is_pinned_exactly_in_the_lock():
    locked = pins()
    wanted = [_canonical(n) for n in _names(REQUIREMENTS)]
    unpinned = all(PIN.match(n) is None and "<" not in n and ">" not in n for n in wanted)
    assert unpinned, "versions go in the lock"
    assert [n for n in wanted if n not in locked] == []
    # CIBench's own requirements; the CPU build of torch (an unpinned torch pulls a CUDA build)
    assert locked["tensorflow-cpu"] == "2.14.0" and locked["lightgbm"] == "4.1.0"
    assert locked["torch"] == "2.13.0+cpu"
    assert locked["numpy"].startswith("1.") and locked["pandas"].startswith("2.1.")
    assert "cibench-lab" not in locked


@pytest.mark.fast
def test_the_kernel_python_is_the_setting_then_the_kernel_env_then_the_servers(tmp_path):
    assert kernel_python({}, tmp_path) == sys.executable  # no kernel env: the server's own
    env_python = kernel_env_python(tmp_path)
    env_python.parent.mkdir(parents=True)
    env_python.symlink_to(sys.executable)
    assert kernel_python({}, tmp_path) == str(env_python)
    assert kernel_python({PYTHON_VAR: sys.executable}, tmp_path) == sys.executable
    with pytest.raises(KernelPythonError, match=PYTHON_VAR):
        kernel_python({PYTHON_VAR: str(tmp_path / "nope")}, tmp_path)
    assert "scripts/setup" in interpreter.kernel_python_note(sys.executable, tmp_path / "x")


@pytest.mark.fast
def test_the_kernelspec_runs_the_launcher_with_the_servers_python_and_names_the_kernels(monkeypatch):
    monkeypatch.setenv(PYTHON_VAR, sys.executable)
    argv = kernelspec_dict()["argv"]
    assert argv[:3] == [sys.executable, "-m", "cibench_lab.kernels.launch"]
    assert argv[argv.index(PYTHON_FLAG) + 1] == sys.executable


@pytest.mark.fast
def test_a_kernel_of_another_python_gets_none_of_the_servers_python_variables():
    environ = {"PYTHONPATH": "/repo", "VIRTUAL_ENV": "/srv/.venv", "PATH": "/usr/bin", "LANG": "C.UTF-8"}
    env = unsandboxed_env(environ, "/srv/.venv/kernel/bin/python")
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env and env["LANG"] == "C.UTF-8"
    assert env["PATH"] == "/srv/.venv/kernel/bin:/usr/bin"
    assert unsandboxed_env(environ, sys.executable)["PYTHONPATH"] == "/repo"  # the launcher's own


@pytest.mark.fast
def test_a_python_that_does_not_run_is_named(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho broken >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(KernelPythonError, match=f"{fake}.*broken"):
        describe(str(fake))


def kernel_env() -> str:
    """The kernel environment's Python (the setting's, else the one inside this venv)."""
    python = kernel_python()
    if python == sys.executable:
        where = kernel_env_python().parents[1]
        pytest.skip(f"no kernel environment at {where} (bash scripts/setup installs it)")
    return python


@pytest.mark.fast
def test_the_attempt_records_the_kernels_libraries_asked_of_its_own_python(monkeypatch):
    python = kernel_env()
    monkeypatch.setenv(PYTHON_VAR, python)
    env = environment()
    locked = pins()
    for name in ("numpy", "pandas", "matplotlib", "tensorflow-cpu", "lightgbm", "torch", "scikit-learn"):
        assert env["libraries"][name] == locked[name], name
    assert env["kernel"]["executable"] == python and env["kernel"]["own_environment"]
    assert env["kernel"]["python"] == env["python"] and env["python"].startswith("3.")
    assert env["server"]["python"] == sys.version.split()[0]
    stamp = Path(python).parents[1] / interpreter.STAMP
    if stamp.is_file():  # installed by scripts/kernel-env (a hand-made env has no stamp)
        assert env["kernel"]["constraints_sha256"] == hashlib.sha256(LOCK.read_bytes()).hexdigest()
    assert "cibench-lab" not in describe(python).packages
    modules = describe(python).modules  # what `tasks new` checks a solution's imports against
    assert {"pandas", "sklearn", "cv2", "torch", "json", "sys"} <= modules and "cibench_lab" not in modules


@pytest.mark.fast
def test_run_and_the_server_refuse_a_kernel_python_that_is_not_there(tmp_path, monkeypatch, capsys, caplog):
    from cibench_lab.app import CIBenchLabApp
    from cibench_lab.cli import main

    missing = str(tmp_path / "no-python")
    monkeypatch.setenv(PYTHON_VAR, missing)
    assert main(["--db", f"sqlite:///{tmp_path / 'r.sqlite'}", "run", "--tasks", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and missing in err and PYTHON_VAR in err
    monkeypatch.setenv(PYTHON_VAR, "")
    app = CIBenchLabApp(kernel_python=missing)
    app.log = logging.getLogger("cibench-lab-test")  # not the app's handler of another test's stream
    with pytest.raises(SystemExit):
        app._start_kernel_python()
    assert os.environ[PYTHON_VAR] == missing  # the trait is what this process's kernels run
    assert [r.levelname for r in caplog.records if missing in r.getMessage()] == ["CRITICAL"]


FAKE_PYTHON = """#!/bin/sh
echo asked >> {runs}
env > {env}
cat <<'JSON'
{facts}
JSON
"""


def fake_python(tmp_path: Path) -> tuple[Path, Path, Callable[[], int]]:
    """An executable that answers the probe as a Python of ``tmp_path/env`` would, and counts
    how often it is asked (its environment in ``asked-env``); also that env's package folder."""
    import json

    prefix = tmp_path / "env"
    site = prefix / "lib" / "site-packages"
    site.mkdir(parents=True)
    facts = {"version": "3.11.7", "prefix": str(prefix), "dirs": [str(prefix)], "paths": [str(site)]}
    facts["packages"] = {"numpy": "1.26.4"}
    facts["modules"] = ["numpy", "os"]
    runs, env = tmp_path / "asked", tmp_path / "asked-env"
    fake = prefix / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(FAKE_PYTHON.format(runs=runs, env=env, facts=json.dumps(facts)))
    fake.chmod(0o755)
    return fake, site, lambda: len(runs.read_text().splitlines()) if runs.exists() else 0


def _touch(path: Path, seconds: int) -> None:
    """A change of ``path`` (an install, a rebuilt interpreter): its mtime moved by ``seconds``."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 10**9))


@pytest.mark.fast
def test_an_interpreters_answer_is_kept_until_it_its_packages_or_its_stamp_change(tmp_path):
    fake, site, asked = fake_python(tmp_path)
    cache = tmp_path / "cache"
    first = describe(str(fake), cache)
    assert (first.version, first.packages, asked()) == ("3.11.7", {"numpy": "1.26.4"}, 1)
    assert first.modules == {"numpy", "os"}  # what an import finds there (tasks new checks imports)
    assert describe(str(fake), cache) == first and asked() == 1  # kept: not asked again
    _touch(fake, 10)  # the interpreter changed
    assert describe(str(fake), cache) == first and asked() == 2
    (site / "pandas-2.1.4.dist-info").mkdir()
    _touch(site, 20)  # a package was installed (the folder's mtime, made unmistakable)
    describe(str(fake), cache)
    assert asked() == 3
    (fake.parents[1] / interpreter.STAMP).write_text("abc  constraints.txt\n")  # reinstalled by kernel-env
    describe(str(fake), cache)
    assert asked() == 4
    assert describe(str(fake), cache) == first and asked() == 4
    assert describe(str(fake), tmp_path / "elsewhere") == first and asked() == 5  # each cache its own


@pytest.mark.fast
def test_a_corrupt_or_unreadable_kept_answer_is_ignored(tmp_path):
    import json

    fake, _, asked = fake_python(tmp_path)
    cache = tmp_path / "cache"
    first = describe(str(fake), cache)
    (kept,) = cache.glob("*.json")
    for broken in ("{not json", "[]", json.dumps({"format": 1, "executable": str(fake), "facts": 3})):
        kept.write_text(broken)
        assert describe(str(fake), cache) == first
        assert json.loads(kept.read_text())["facts"]["packages"] == first.packages  # rewritten
    stale = json.loads(kept.read_text())
    stale["facts"]["dirs"] = 7  # fresh stamp, an answer that is not one
    kept.write_text(json.dumps(stale))
    assert describe(str(fake), cache) == first
    kept.unlink()
    kept.mkdir()  # unreadable, and cannot be replaced: asked every time, no error
    assert describe(str(fake), cache) == first and describe(str(fake), cache) == first
    assert asked() == 7


@pytest.mark.fast
def test_the_interpreter_is_asked_in_a_kernels_environment_without_secrets(tmp_path, monkeypatch):
    from cibench_lab.kernels.spec import KERNEL_ENV
    from cibench_lab.models.redact import HIDE_VAR, is_secret_name

    for name, value in {
        "OPENAI_API_KEY": "sk-probe-0123456789",
        "JUPYTERHUB_API_TOKEN": "hub-token-0123456789",
        "MY_JUDGE_ENDPOINT": "named-by-the-server",
        HIDE_VAR: "MY_JUDGE_ENDPOINT",
        "JUPYTER_RUNTIME_DIR": "/srv/runtime",
        "LANG": "C.UTF-8",
    }.items():
        monkeypatch.setenv(name, value)
    fake, _, _ = fake_python(tmp_path)
    describe(str(fake), tmp_path / "cache")
    text = (tmp_path / "asked-env").read_text()
    env = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert [k for k in env if is_secret_name(k)] == []
    for value in ("sk-probe", "hub-token", "named-by-the-server", "/srv/runtime", HIDE_VAR):
        assert value not in text
    assert {k: env[k] for k in KERNEL_ENV} == KERNEL_ENV and env["LANG"] == "C.UTF-8"
    assert env["PATH"].split(os.pathsep)[0] == str(fake.parent)
