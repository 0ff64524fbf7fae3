"""The server checks at start that the task kernels' Python has the task libraries
(``CIBenchLabApp.kernel_check``, ``kernel_libraries``): a kernel environment that lacks one is
refused with one line naming it, not found when a person presses Start. The interpreters here are
real: venvs of the kernel environment's Python that see its packages but one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cibench_lab.kernels.interpreter import kernel_python
from cibench_lab.kernels.libraries import TASK_LIBRARIES, check_libraries

HERE = Path(__file__).resolve().parent.parent
BROKEN = "raise OSError('libgomp.so.1: cannot open shared object file: No such file or directory')\n"


def kernel_env() -> str:
    python = kernel_python()
    if python == sys.executable:
        pytest.skip("no kernel environment (bash scripts/setup installs it)")
    return python


def env_without(tmp_path: Path, library: str, broken: bool = False) -> Path:
    """A venv of the kernel environment's Python that sees every package of that environment but
    ``library`` (its folder and metadata left out, as if never installed); ``broken``: a
    ``library`` that is there but fails to import, as lightgbm does without libgomp."""
    base = kernel_env()
    venv = tmp_path / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = subprocess.run(
        [base, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    shadow = tmp_path / "site"
    shadow.mkdir()
    for entry in Path(site).iterdir():
        if entry.name.split("-")[0].split(".")[0].lower() != library:
            (shadow / entry.name).symlink_to(entry)
    if broken:
        (shadow / library).mkdir()
        (shadow / library / "__init__.py").write_text(BROKEN)
    python = venv / "bin" / "python"
    own = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    Path(own, "kernel-env.pth").write_text(f"import site; site.addsitedir({str(shadow)!r})\n")
    return python


@pytest.mark.fast
def test_the_default_libraries_are_cibenchs_ten():
    ten = "lightgbm matplotlib nltk cv2 pandas torch scipy seaborn sklearn tensorflow"
    assert set(TASK_LIBRARIES) == set(ten.split())


@pytest.mark.fast
def test_a_library_not_installed_is_named_at_no_cost(tmp_path):
    python = env_without(tmp_path, "lightgbm")
    cache = tmp_path / "cache"
    line = check_libraries(str(python), list(TASK_LIBRARIES), "find", cache)
    assert line is not None and "\n" not in line
    assert str(python) in line and "lightgbm (not installed)" in line and "pandas" not in line
    assert "CIBenchLabApp.kernel_libraries" in line and "kernel_check='off'" in line
    assert check_libraries(str(python), ["pandas", "sklearn"], "find", cache) is None
    assert check_libraries(str(python), list(TASK_LIBRARIES), "off", cache) is None
    line = check_libraries(str(python), ["lightgbm", "nosuchlib"], "find", cache)
    assert line and "lightgbm (not installed); nosuchlib (not installed)" in line


def test_importing_finds_a_library_that_is_installed_but_broken(tmp_path):
    python = env_without(tmp_path, "lightgbm", broken=True)
    cache = tmp_path / "cache"
    chosen = ["pandas", "lightgbm"]
    assert check_libraries(str(python), chosen, "find", cache) is None  # it is there
    line = check_libraries(str(python), chosen, "import", cache)
    assert line is not None and "\n" not in line and str(python) in line
    assert "lightgbm (OSError: libgomp.so.1: cannot open shared object file" in line and "pandas" not in line
    assert list(cache.glob("imports-*.ok")) == []  # a failure is asked again at the next start
    (tmp_path / "site" / "lightgbm" / "__init__.py").write_text("")  # repaired
    assert check_libraries(str(python), chosen, "import", cache) is None
    (kept,) = cache.glob("imports-*.ok")  # a success is kept: the next start imports nothing
    (tmp_path / "site" / "lightgbm" / "__init__.py").write_text(BROKEN)
    assert check_libraries(str(python), chosen, "import", cache) is None


def test_the_kernel_environment_imports_every_task_library(tmp_path):
    """The environment scripts/setup installs passes the full check (~5 s of imports, once)."""
    assert check_libraries(kernel_env(), list(TASK_LIBRARIES), "import", tmp_path) is None


def start_server(tmp_path: Path, python: Path, *options: str) -> subprocess.CompletedProcess:
    """`jupyter server` with cibench-lab and task kernels of ``python``, run until it exits
    (a refusal) or is found serving (then stopped: returncode None)."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"ServerApp": {"jpserver_extensions": {"cibench_lab": True}}}))
    (tmp_path / "root").mkdir()
    cmd = [
        *(sys.executable, "-m", "jupyter", "server", "--no-browser", "--port=0", "--ServerApp.ip=127.0.0.1"),
        f"--ServerApp.root_dir={tmp_path / 'root'}", "--ServerApp.allow_root=True", f"--config={config}",
        f"--CIBenchLabApp.database_url=sqlite:///{tmp_path / 'r.sqlite'}",
        f"--CIBenchLabApp.kernel_python={python}", *options,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "JUPYTER_DATA_DIR": str(tmp_path / "data")}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.fast
def test_the_server_refuses_to_start_naming_the_missing_library(tmp_path):
    python = env_without(tmp_path, "lightgbm")
    done = start_server(tmp_path, python)
    assert done.returncode != 0
    said = [line for line in done.stderr.splitlines() if "lightgbm" in line]
    assert len(said) == 1, done.stderr[-3000:]
    assert "cibench-lab: the kernel Python" in said[0] and "lightgbm (not installed)" in said[0]
    assert "Traceback" not in done.stderr
