"""Fixtures: a real Jupyter server with cibench-lab, real kernels, a real SQLite store."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

pytest_plugins = ["pytest_jupyter.jupyter_server"]

# The tests mirror the packages (tests/play/, tests/kernels/, ...); a test module that shares another's
# helpers imports it by name, from whichever folder it is in (pytest's rootdir-relative import).
for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and _folder.name not in ("fixtures", "ui", "security", "__pycache__"):
        sys.path.insert(1, str(_folder))

SECRET_CODE = "LEAKPROBE_CODE_X1"
SECRET_OUT = "LEAKPROBE_OUT_X2"
SECRET_THOUGHT = "LEAKPROBE_THOUGHT_X3"
PROBE_ID = "cibench_template/pandas/leak_probe"


def write_probe_task(root: Path) -> Path:
    """A small task whose reference material is full of distinctive strings."""
    steps = [
        ("Make a variable `probe` holding a string.", f"probe = '{SECRET_CODE}'", [], "exec"),
        (
            "Print the probe words.",
            f"print('{SECRET_OUT} alpha beta')",
            [new_output("stream", name="stdout", text=f"{SECRET_OUT} alpha beta\n")],
            "text",
        ),
        ("Print six times seven.", "print(6 * 7)", [new_output("stream", name="stdout", text="42\n")], "num"),
        (
            "Print the length of `probe`.",
            "print(len(probe))",
            [new_output("stream", name="stdout", text=f"{len(SECRET_CODE)}\n")],
            "num",
        ),
    ]
    cells = []
    for text, code, outputs, _ in steps:
        cells.append(new_markdown_cell(f"{text}\n\nThought: {SECRET_THOUGHT} for this step"))
        cells.append(new_code_cell(code, outputs=outputs))
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = [k for *_, k in steps]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Leak probe", "language": "en"}
    path = root / "cibench_template" / "pandas" / "leak_probe.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def task_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tasks")
    write_probe_task(root)
    return root


def server_config(tmp_path: Path, task_dirs: list[Path], **options) -> dict:
    """A Jupyter server config with cibench_lab on, authenticated, its results in ``tmp_path``;
    ``options`` are more ``CIBenchLabApp`` traits (or a ``{"Section": {...}}`` under ``extra``)."""
    extra = options.pop("extra", {})
    return {
        "ServerApp": {"jpserver_extensions": {"cibench_lab": True}, "allow_unauthenticated_access": False},
        "CIBenchLabApp": {
            "database_url": f"sqlite:///{tmp_path / 'results.sqlite'}",
            "task_dirs": [str(d) for d in task_dirs],
            **options,
        },
        **extra,
    }


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    from cibench_lab.tasks.library import builtin_dir

    return server_config(
        tmp_path,
        [builtin_dir(), task_root],
        turn_timeout=60.0,
        # these tests read CIBench's wording; the lab's default (fair) is tested in test_grade_rule_server
        profile="cibench",
        models={
            "probe-model": {
                "model": "gpt-probe",
                "base_url": "http://127.0.0.1:9/v1",
                "api_key_env": "CIBENCH_PROBE_KEY",
            }
        },
    )


@pytest.fixture
def api(jp_fetch):
    """JSON calls to /cibench-lab/api/...: returns (status, body)."""

    async def call(method: str, path: str, body: dict | None = None):
        kwargs = {"method": method, "raise_error": False}
        if body is not None:
            kwargs["body"] = json.dumps(body)
        resp = await jp_fetch("cibench-lab", "api", *path.split("/"), **kwargs)
        return resp.code, json.loads(resp.body or b"null")

    return call


class Browser:
    """Runs code on an attempt's kernel the way the lab does — through the server's kernel
    websocket (a turn is a request the server saw) — and reports the msg_id. ``kc``: a direct
    client of the kernel, for what a test reads or asks beside the cells it runs."""

    def __init__(self, serverapp, api, attempt: dict):
        self.app = serverapp
        self.api = api
        self.attempt = attempt
        self.kernel_id = attempt["kernel_id"]
        self.kc = serverapp.kernel_manager.get_kernel(self.kernel_id).client()
        self.kc.start_channels()
        self.ws = None  # (KernelSocket, its kernel id), opened at the first run

    async def socket(self):
        from kernel_socket import KernelSocket

        if self.ws is None or self.ws[1] != self.kernel_id:
            if self.ws is not None:
                self.ws[0].close()
            self.ws = (await KernelSocket.to(self.app, self.kernel_id), self.kernel_id)
        return self.ws[0]

    async def send(self, code: str, **content) -> str:
        """Send ``code`` as a cell's execute request (a fresh uuid msg_id, as JupyterLab sends)."""
        from kernel_socket import execute_request

        socket = await self.socket()
        return socket.send(execute_request(code, socket.session, **content))

    async def execute(self, code: str) -> str:
        socket = await self.socket()
        msg_id = await self.send(code)
        await socket.reply(msg_id)
        return msg_id

    async def turn(self, step: int, code: str, **extra):
        msg_id = await self.execute(code)
        return await self.api(
            "POST",
            f"attempts/{self.attempt['id']}/turns",
            {"step": step, "kernel_id": self.kernel_id, "msg_id": msg_id, **extra},
        )

    async def next(self, step: int):
        return await self.api("POST", f"attempts/{self.attempt['id']}/next", {"step": step})

    def close(self):
        self.kc.stop_channels()
        if self.ws is not None:
            self.ws[0].close()
            self.ws = None


@pytest.fixture
def start_attempt(jp_serverapp, api):
    browsers: list[Browser] = []

    async def start(task_id: str = PROBE_ID, mode: str = "e2e", **settings):
        code, body = await api(
            "POST", "attempts", {"task_id": task_id, "mode": mode, "settings": settings or None}
        )
        assert code == 201, body
        b = Browser(jp_serverapp, api, body)
        browsers.append(b)
        return b

    yield start
    for b in browsers:
        b.close()


def _uses_the_session_browser(item) -> bool:
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}).get("browser")
    return bool(defs) and defs[-1].scope == "session"


def pytest_collection_modifyitems(session, config, items):
    """Tests on the session's chromium (tests/ui's ``browser``) last, wherever their module is
    (tests/ui, tests/security): driven by Playwright's sync API, it keeps an event loop running in this
    thread from its first test on, where pytest-jupyter's in-process servers would find it. A module
    with a browser of its own (module-scoped, closed with it) stays where it is. They are marked
    ``browser`` (``-m 'not browser'`` leaves them out)."""
    items.sort(key=_uses_the_session_browser)
    for item in items:
        if _uses_the_session_browser(item):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CIBENCH_LAB_STRICT (the test command), a skipped test is a failure."""
    outcome = yield
    report = outcome.get_result()
    import os

    if os.environ.get("CIBENCH_LAB_STRICT") and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped under CIBENCH_LAB_STRICT: {report.longrepr}"


@pytest.fixture(autouse=True)
def _fast_tests_start_no_kernel_and_no_browser(request, monkeypatch):
    """A test marked ``fast`` (``pytest -m fast``) starts no kernel and no browser: launching one fails it.

    An in-process Jupyter server is allowed (pytest-jupyter's ``jp_serverapp`` starts in under a second).
    """
    if request.node.get_closest_marker("fast") is None:
        return
    import subprocess

    popen_init = subprocess.Popen.__init__

    def guarded(self, args, *rest, **kwargs):
        argv = [str(a) for a in args] if isinstance(args, list | tuple) else [str(args)]
        if any(word in a for a in argv for word in ("ipykernel", "kernel_launch", "chrom", "playwright")):
            raise RuntimeError(f"{request.node.nodeid} is marked fast but starts a kernel or browser: {argv}")
        popen_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)


_LEAKS: list[str] = []


@pytest.fixture(autouse=True)
def _environment_kept(request):
    """Each test leaves our variables (``CIBENCH_LAB_*``) as it found them. Our in-process code sets
    them for the kernels and runs it starts (the kernel Python, the sandbox and its limits, the
    variables kernels must not see), and a test calling it would pass them to every later test of its
    process — which tests those are depends on the order (one pytest process, or a worker of
    scripts/test's). Put back after each test and listed at the end of the session. (Others' variables
    are left: a library sets some at import, e.g. OpenMP's, and needs them kept.)"""
    import os

    before = {k: v for k, v in os.environ.items() if k.startswith("CIBENCH_LAB_")}
    yield
    after = {k: v for k, v in os.environ.items() if k.startswith("CIBENCH_LAB_")}
    if after == before:
        return
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    _LEAKS.append(f"{request.node.nodeid}: {', '.join(changed)}")
    for name in after.keys() - before.keys():
        del os.environ[name]
    os.environ.update(before)


def pytest_terminal_summary(terminalreporter):
    if _LEAKS:
        terminalreporter.section("our environment variables put back after these tests")
        for line in _LEAKS:
            terminalreporter.line(line)
