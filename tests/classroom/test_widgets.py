"""``cibench_lab.widgets.Results()`` in real kernels against a real `jupyter server` with the
extension: what a participant and an instructor list (the server's role checks, through its
REST API), how the kernel finds its server, and a sandboxed task kernel's refusal."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import server_config
from jupyter_client import BlockingKernelClient, KernelManager
from rules_task import EN, attempts_for, printed

from cibench_lab.kernels import sandbox
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store.tables import Attempt, Run, Study
from cibench_lab.widgets import where
from cibench_lab.widgets.where import Unavailable, find_server

HERE = Path(__file__).parent.parent
TOKEN = "cibench-widgets-token"

PROBE = """
import json
from cibench_lab.widgets import Results
r = Results()
out = {"error": r.error, "me": r.me, "source": r.source.value, "first": sorted(a["id"] for a in r.attempts)}
r.list_source("mine")
out.update({"mine": [a["id"] for a in r.attempts], "groups": r.groups})
out["sources"] = [key for _, key in r.source.options]
if ("study:pilot") in [key for _, key in r.groups]:
    r.list_group("study:pilot")
out["mine_in_pilot"] = [a["id"] for a in r.attempts]
if r.me and "instructor" in r.me["roles"]:
    r.list_source("class")
    out["class"] = sorted([a["participant"], a["id"]] for a in r.attempts)
    out["class_groups"] = r.groups
    r.list_group("study:pilot")
    out["class_in_pilot"] = sorted([a["participant"], a["id"]] for a in r.attempts)
    r.list_group("all")
    r.view_attempt(OPEN)
    out["detail"] = r.detail.value
else:  # a participant asking for the class list anyway: the server's 403, as a sentence
    r.source.options = [*r.source.options, ("class", "class")]
    r.source.value = "class"
    out["refused"] = r.error
print(json.dumps(out))
"""

RUNS_PROBE = """
import json
from cibench_lab.widgets import Results
r = Results()
out = {"error": r.error, "sources": [key for _, key in r.source.options]}
r.list_source("runs")
out["runs"] = sorted([a["participant"], a["id"]] for a in r.attempts)
out["groups"] = r.groups
r.view_attempt(RUN)
out["detail"], out["detail_error"] = r.detail.value, r.error
r.view_attempt(OTHER)
out["unlisted"] = r.error
print(json.dumps(out))
"""


class Server:
    """`jupyter server` with cibench_lab in its own process, its own runtime folder."""

    def __init__(self, tmp: Path, name: str, config: dict):
        self.port = _free_port()
        self.runtime = tmp / f"runtime-{name}"
        self.log = tmp / f"{name}.log"
        self.config = tmp / f"{name}_config.json"
        self.config.write_text(json.dumps(config))
        self.root = tmp / f"root-{name}"
        self.root.mkdir()
        cmd = [
            *(sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={self.port}"),
            *("--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={TOKEN}"),
            *(f"--ServerApp.root_dir={self.root}", "--ServerApp.allow_root=True", f"--config={self.config}"),
        ]
        env = {**os.environ, "PYTHONPATH": str(HERE.parent), "JUPYTER_RUNTIME_DIR": str(self.runtime)}
        for name in ("JUPYTER_SERVER_URL", "JUPYTERHUB_SERVICE_URL", *where.TOKEN_VARS):
            env.pop(name, None)
        self.proc = subprocess.Popen(
            cmd, stdout=self.log.open("ab"), stderr=subprocess.STDOUT, env=env, start_new_session=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def wait(self) -> None:
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter server exited: {self.log.read_text()[-3000:]}")
            try:
                self.call("GET", "api/status")
                return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError(f"jupyter server did not start: {self.log.read_text()[-3000:]}")

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"token {TOKEN}")
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read() or b"null")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(client: BlockingKernelClient, code: str) -> dict:
    """Run ``code`` in the kernel; the JSON it printed (its traceback, if it raised, fails)."""
    printed: list[str] = []
    errors: list[str] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            errors.append("\n".join(msg["content"]["traceback"]))

    client.execute_interactive(code, timeout=180, output_hook=hook)
    assert not errors, errors
    return json.loads("".join(printed).strip().splitlines()[-1])


@pytest.fixture
def classroom(tmp_path):
    """Attempts of ada and bob (class demo) and of eve (no class), one database; a turn of ada's."""
    attempts = attempts_for(tmp_path / "tasks")
    ids = {}
    for who in ("ada", "bob", "eve", "ada-pilot", "eve-pilot", "ada-night"):
        task = attempts.library.get(EN)
        ids[who] = attempts.create(NewAttempt(task, "e2e", "human", who[:3], PlaySettings(), {}))
    attempts.record_turn(ids["ada"], 0, printed("ada's own words"))
    attempts.record_turn(ids["ada-night"], 0, printed("the night's words"))
    with attempts.store.session() as s:  # a study ada and eve played in, a run of ada's
        run = Run(name="night", player="human", mode="e2e")
        s.add_all([Study(id="pilot", title="Pilot", salt="s" * 32), run])
        s.flush()
        for key in ("ada-pilot", "eve-pilot"):
            s.get(Attempt, ids[key]).study_id = "pilot"
        s.get(Attempt, ids["ada-night"]).run_id = run.id
    roles = {
        "instructors": ["teach"],
        "researchers": ["rita"],
        "class_members": {"demo": ["ada", "bob", "teach"]},
    }
    config = server_config(tmp_path / "tasks", [tmp_path / "tasks"], **roles)
    servers = []

    def serve(participant: str) -> Server:
        lab = {**config["CIBenchLabApp"], "participant": participant}
        server = Server(tmp_path, participant, {**config, "CIBenchLabApp": lab})
        servers.append(server)
        return server

    yield ids, serve
    for server in servers:
        server.stop()


def test_results_list_what_the_server_lets_each_user_read(classroom, tmp_path):
    ids, serve = classroom
    teach, ada = serve("teach"), serve("ada")
    teach.wait()
    ada.wait()

    # the teacher's kernel, started by the teacher's server: found through the running-server list
    kernel = teach.call("POST", "api/kernels", {"name": "python3"})
    client = BlockingKernelClient(connection_file=str(teach.runtime / f"kernel-{kernel['id']}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        seen = _run(client, f"OPEN = {ids['ada']!r}\n{PROBE}")
    finally:
        client.stop_channels()
    assert seen["error"] is None, seen
    assert seen["me"] == {"name": "teach", "roles": ["participant", "instructor"], "classes": ["demo"]}
    adas = [["ada", ids[key]] for key in ("ada", "ada-pilot")]  # not her run's: no class work
    assert seen["source"] == "class"  # an instructor opens on their classes' attempts
    assert seen["first"] == sorted([ids["ada"], ids["ada-pilot"], ids["bob"]])
    assert seen["mine"] == [] and seen["groups"] == [["All (0)", "all"]] and seen["mine_in_pilot"] == []
    assert seen["sources"] == ["mine", "class"]  # the runs' route needs the researcher role
    assert seen["class"] == sorted([*adas, ["bob", ids["bob"]]])  # none of eve's
    assert seen["class_groups"] == [
        ["All (3)", "all"],
        ["Study: pilot (1)", "study:pilot"],  # the server defines no study: its id names it
        ["In no study or run (2)", "none"],
    ]
    assert seen["class_in_pilot"] == [["ada", ids["ada-pilot"]]]  # not eve's attempt in the study
    assert "ada&#x27;s own words" in seen["detail"] and "Print the words." in seen["detail"]
    assert "<h4>ada: " in seen["detail"] and "played by ada" in seen["detail"]  # not "human"

    # ada's kernel with the environment a hub gives a single-user server's kernels
    empty = tmp_path / "no-servers"
    empty.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE.parent),
        "JUPYTERHUB_SERVICE_URL": ada.url,
        "JUPYTERHUB_API_TOKEN": TOKEN,
        "JUPYTER_RUNTIME_DIR": str(empty),
    }
    env.pop("JUPYTER_SERVER_URL", None)
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        seen = _run(client, f"OPEN = {ids['bob']!r}\n{PROBE}")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert seen["me"] == {"name": "ada", "roles": ["participant"], "classes": ["demo"]}
    assert seen["sources"] == ["mine"] and seen["source"] == "mine"
    assert sorted(seen["mine"]) == sorted(ids[key] for key in ("ada", "ada-pilot", "ada-night"))
    assert [label for label, _ in seen["groups"]] == [
        "All (3)",
        "Run: night (1)",
        "Study: pilot (1)",
        "In no study or run (1)",
    ]
    assert seen["mine_in_pilot"] == [ids["ada-pilot"]]
    assert seen["refused"] == (
        "The server refused GET classes/attempts (403): GET /classes/attempts needs the instructor role."
    )


def test_a_researcher_opens_a_runs_attempt(classroom, tmp_path):
    """rita (a researcher) lists the headless runs' attempts and opens one — its steps and the turn's
    code and output — through her server's REST API, from a kernel given the server's URL and token."""
    ids, serve = classroom
    rita = serve("rita")
    rita.wait()
    empty = tmp_path / "no-servers"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "JUPYTER_RUNTIME_DIR": str(empty)}
    for name in ("JUPYTERHUB_SERVICE_URL", *where.TOKEN_VARS):
        env.pop(name, None)
    env.update({"JUPYTER_SERVER_URL": rita.url, "JUPYTER_TOKEN": TOKEN})
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        seen = _run(client, f"RUN, OTHER = {ids['ada-night']!r}, {ids['ada']!r}\n{RUNS_PROBE}")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert seen["error"] is None and seen["sources"] == ["mine", "runs"], seen
    assert seen["runs"] == [["ada", ids["ada-night"]]] and seen["groups"] == [
        ["All (1)", "all"],
        ["Run: night (1)", "run:night"],
    ]
    assert seen["detail_error"] is None, seen
    assert "the night&#x27;s words" in seen["detail"] and "Print the words." in seen["detail"]
    assert seen["unlisted"] == (
        f"Attempt {ids['ada']} is not listed here: list its source, study or run first."
    )


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "sandbox-off"])
async def test_a_sandboxed_task_kernel_says_it_is_unavailable(tmp_path, monkeypatch, sandboxed):
    """The task kernel carries the sandbox's marker, 1 in the sandbox and 0 with it off, and the
    widget's server finder reads it. cibench_lab is not even importable in the sandbox
    (tests/kernels/test_sandbox.py); the module that finds the server is standard library only, so the
    kernel runs its very source."""
    monkeypatch.setenv(sandbox.ENABLED_VAR, "1" if sandboxed else "0")
    monkeypatch.setenv(where.SANDBOX_MARKER, "1")  # the server's own environment says nothing of its kernels
    attempt = tmp_path / "attempt"
    attempt.mkdir()
    source = Path(where.__file__).read_text(encoding="utf-8")
    call = (
        "import os\nprint(os.environ.get(SANDBOX_MARKER))\n"
        "try:\n    find_server()\nexcept Unavailable as e:\n    print(e)"
    )
    code = f"exec(compile({source!r}, 'where.py', 'exec'))\n{call}"
    executor = KernelExecutor(attempt, timeout=60)
    await executor.start()
    try:
        ex = await executor.run(code)
    finally:
        await executor.shutdown()
    assert not ex.error, ex.outputs
    marker, said = "".join(o["text"] for o in ex.outputs if o["output_type"] == "stream").split("\n", 1)
    assert marker == ("1" if sandboxed else "0")
    refused = said.startswith("cibench-lab results are unavailable in a sandboxed task kernel")
    assert refused == sandboxed, said  # with the sandbox off it looks for the server (none here)


@pytest.mark.fast
def test_without_a_server_or_a_token_the_reason_is_a_sentence(tmp_path):
    with pytest.raises(Unavailable, match=r"^No Jupyter server found for this kernel: .* listed in "):
        find_server({"JUPYTER_RUNTIME_DIR": str(tmp_path)})
    with pytest.raises(Unavailable, match=r"^No token for the server at http://h:1/"):
        find_server({"JUPYTER_RUNTIME_DIR": str(tmp_path), "JUPYTER_SERVER_URL": "http://h:1"})
    (tmp_path / "jpserver-7.json").write_text(json.dumps({"url": "http://h:2/base/", "token": "t", "pid": 7}))
    (tmp_path / "jpserver-8.json").write_text(json.dumps({"url": "http://h:3/", "token": "u", "pid": 8}))
    found = find_server({"JUPYTER_RUNTIME_DIR": str(tmp_path), "JPY_PARENT_PID": "7"})
    assert (found.api, found.token) == ("http://h:2/base/cibench-lab/api/", "t")
    hub = {"JUPYTER_RUNTIME_DIR": str(tmp_path), "JUPYTERHUB_SERVICE_URL": "http://h/user/a/"}
    assert find_server({**hub, "JUPYTERHUB_API_TOKEN": "hub"}) == where.Server("http://h/user/a/", "hub")
    with pytest.raises(Unavailable, match="sandboxed task kernel"):
        find_server({**hub, "JUPYTERHUB_API_TOKEN": "hub", "CIBENCH_LAB_SANDBOXED": "1"})
