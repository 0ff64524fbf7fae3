"""Benchmark: reads of attempts while other turns' 5000×5000 plots are graded.

A real Jupyter server with cibench-lab (a subprocess, its own config and data
dirs) and real kernels.  20 clients (``--clients``) issue ``GET
/cibench-lab/api/attempts/{id}`` on a few attempts (``--attempts``), each waiting
``--think`` seconds between requests, for ``--seconds`` (default 60) twice:

(a) nothing else happens;
(b) a driver (another process, so its own decoding does not slow the clients)
    plays another attempt through the real API, one turn after another: a cell
    on that attempt's kernel displays a 5000×5000 matplotlib PNG, the turn is
    reported (``POST .../turns``: the server grades it from its own capture) and
    the step settled (``POST .../next``) so every turn is a new step's first.
    The figure is rendered once in the kernel and re-displayed with a new PNG
    text chunk per turn (new bytes, same pixels), so the kernel does not render
    a plot per turn but the server decodes and compares every one.  Measuring
    starts after the first graded turn (the grading pool is started by it).

    python bench/grading_load.py [--seconds 60] [--clients 20] [--think 0.05]

Prints p50/p95 of both phases side by side and their ratio (target: p95 within
2×), the turns graded in (b) with their POST latency, and the grading workers'
niceness.  A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import multiprocessing
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
import psutil
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

REPO = Path(__file__).resolve().parents[1]
READERS_ID, PLOTS_ID = "cibench_template/bench/readers", "cibench_template/bench/plots"
SETUP = """\
import io, struct, zlib
import matplotlib.pyplot as plt, numpy as np
from IPython.display import Image, display
_fig = plt.figure(figsize=(50, 50), dpi=100)
_ax = _fig.add_subplot()
_x = np.linspace(0, 10, 4000)
for _k in range(8):
    _ax.plot(_x, np.sin(_x + _k / 2) * (1 + _k / 8), lw=4)
_ax.set_title("a 5000 x 5000 plot", fontsize=80)
_buf = io.BytesIO(); _fig.savefig(_buf, format="png", dpi=100); plt.close(_fig)
BIG, N = _buf.getvalue(), 0
assert len(BIG) * 4 / 3 < 4_000_000, len(BIG)  # the server keeps 4 MB of output per run
"""
TURN = """\
N += 1
_t = b"tEXt" + b"turn\\x00" + str(N).encode()
_chunk = struct.pack(">I", len(_t) - 4) + _t + struct.pack(">I", zlib.crc32(_t))
display(Image(data=BIG[:33] + _chunk + BIG[33:]))
"""


# ---- tasks ------------------------------------------------------------------------------
def small_plot() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([1, 3, 2, 4])
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def write_task(root: Path, stem: str, steps: list[tuple[str, str, list, str]]) -> None:
    cells = []
    for text, code, outputs, _ in steps:
        cells += [new_markdown_cell(text), new_code_cell(code, outputs=outputs)]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = [kind for *_, kind in steps]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": stem, "language": "en"}
    path = root / "cibench_template" / "bench" / f"{stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def write_tasks(root: Path, plot_steps: int) -> None:
    out = new_output("stream", name="stdout", text="42\n")
    write_task(root, "readers", [(f"Print 42 ({i}).", "print(42)", [out], "num") for i in range(3)])
    fig = new_output("display_data", data={"image/png": small_plot(), "text/plain": "<Figure>"})
    write_task(root, "plots", [(f"Plot it ({i}).", "plt.show()", [fig], "vis") for i in range(plot_steps)])
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


# ---- the server -------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp: Path, port: int, token: str, workers: int) -> subprocess.Popen:
    config, data, root = tmp / "config", tmp / "data", tmp / "root"
    for d in (config, data, root):
        d.mkdir(parents=True, exist_ok=True)
    settings = {
        "ServerApp": {
            "jpserver_extensions": {"cibench_lab": True, "jupyter_lsp": False},
            "allow_root": True,
            "port": port,
            "ip": "127.0.0.1",
            "open_browser": False,
            "root_dir": str(root),
        },
        "IdentityProvider": {"token": token},
        "CIBenchLabApp": {
            "database_url": f"sqlite:///{tmp / 'results.sqlite'}",
            "task_dirs": [str(tmp / "tasks")],
            "turn_timeout": 300.0,
            "grading_workers": workers,
        },
    }
    (config / "jupyter_server_config.json").write_text(json.dumps(settings))
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(config), "JUPYTER_DATA_DIR": str(data)}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([sys.executable, "-m", "jupyter_server"], env=env, stdout=log, stderr=log)


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    for child in children:  # kernels or grading workers the server left behind
        if child.is_running():
            child.kill()


class Api:
    def __init__(self, base: str, token: str):
        self.base, self.token = base, token
        self.http = AsyncHTTPClient(max_clients=64)

    async def call(self, method: str, path: str, body: dict | None = None) -> dict:
        req = HTTPRequest(
            f"{self.base}/cibench-lab/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
            body=None if body is None else json.dumps(body),
            request_timeout=600,
        )
        resp = await self.http.fetch(req)
        return json.loads(resp.body or b"null")

    async def ready(self, server: subprocess.Popen, log: Path, timeout: float = 120) -> None:
        until = time.monotonic() + timeout
        while True:
            try:
                await self.call("GET", "tasks")
                return
            except Exception:
                if server.poll() is not None or time.monotonic() > until:
                    tail = log.read_text(errors="replace")[-3000:]
                    raise RuntimeError(f"the server did not start:\n{tail}") from None
                await asyncio.sleep(0.5)


# ---- the driver: plot turns through the API ---------------------------------------------
class Kernel:
    """A kernel's channels over the server's websocket, as JupyterLab uses them."""

    def __init__(self, ws, session: str):
        self.ws, self.session = ws, session

    @classmethod
    async def open(cls, api: Api, kernel_id: str) -> Kernel:
        session = uuid.uuid4().hex
        query = f"session_id={session}&token={api.token}"
        req = HTTPRequest(f"{api.base.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels?{query}")
        return cls(await websocket_connect(req, max_message_size=1 << 30), session)

    async def execute(self, code: str) -> str:
        msg_id = uuid.uuid4().hex
        header = {"msg_id": msg_id, "msg_type": "execute_request", "session": self.session,
                  "username": "bench", "version": "5.3", "date": ""}  # fmt: skip
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": True}  # fmt: skip
        msg = {"header": header, "parent_header": {}, "metadata": {}, "content": content,
               "channel": "shell", "buffers": []}  # fmt: skip
        await self.ws.write_message(json.dumps(msg))
        while True:
            raw = await self.ws.read_message()
            if raw is None:
                raise RuntimeError("the kernel's websocket closed")
            reply = json.loads(raw)
            if reply.get("channel") == "shell" and reply["parent_header"].get("msg_id") == msg_id:
                return msg_id


async def play_turns(base: str, token: str, attempt: dict, events, report) -> None:
    go, warm, stop = events
    api = Api(base, token)
    kernel = await Kernel.open(api, attempt["kernel_id"])
    await kernel.execute(SETUP)
    report.put(("ready", 0.0))
    await asyncio.to_thread(go.wait)
    step = attempt["current_step"]
    while not stop.is_set() and step is not None:
        start = time.perf_counter()
        msg_id = await kernel.execute(TURN)
        body = {"step": step, "kernel_id": attempt["kernel_id"], "msg_id": msg_id}
        result = await api.call("POST", f"attempts/{attempt['id']}/turns", body)
        report.put(("turn", time.perf_counter() - start, result["grade"]["detail"]))
        warm.set()
        settled = await api.call("POST", f"attempts/{attempt['id']}/next", {"step": step})
        step = settled["settled"]["next_step"]


def drive(base: str, token: str, attempt: dict, events, report) -> None:
    asyncio.run(play_turns(base, token, attempt, events, report))


# ---- the readers ------------------------------------------------------------------------
async def read_load(api: Api, ids: list[str], clients: int, seconds: float, think: float) -> list[float]:
    latencies: list[float] = []
    until = time.monotonic() + seconds

    async def client(i: int) -> None:
        attempt_id = ids[i % len(ids)]
        while time.monotonic() < until:
            start = time.perf_counter()
            await api.call("GET", f"attempts/{attempt_id}")
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(think)

    await asyncio.gather(*(client(i) for i in range(clients)))
    return latencies


def quantiles(xs: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(xs, n=100)
    return statistics.median(xs) * 1000, cuts[94] * 1000


def worker_niceness(server_pid: int) -> list[int]:
    found = []
    for child in psutil.Process(server_pid).children(recursive=True):
        try:
            if "multiprocessing" in " ".join(child.cmdline()) and child.nice() > 0:
                found.append(child.nice())
        except psutil.Error:
            continue
    return found


# ---- the run ----------------------------------------------------------------------------
async def prepare(api: Api, readers: int, server: subprocess.Popen, log: Path) -> tuple[list, dict]:
    await api.ready(server, log)
    new = {"task_id": READERS_ID, "mode": "e2e"}
    ids = [(await api.call("POST", "attempts", new))["id"] for _ in range(readers)]
    plots = await api.call("POST", "attempts", {"task_id": PLOTS_ID, "mode": "e2e"})
    return ids, plots


async def phases(args, api: Api, server: subprocess.Popen, log: Path) -> None:
    ids, plots = await prepare(api, args.attempts, server, log)
    ctx = multiprocessing.get_context("spawn")
    go, warm, stop, report = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue()
    events = (go, warm, stop)
    driver = ctx.Process(target=drive, args=(api.base, api.token, plots, events, report), daemon=True)
    driver.start()
    await asyncio.to_thread(wait_for, driver, report.get)  # the big figure is rendered in its kernel
    print(f"(a) {args.clients} clients, no grading, {args.seconds:.0f} s ...", flush=True)
    idle = await read_load(api, ids, args.clients, args.seconds, args.think)
    go.set()
    await asyncio.to_thread(wait_for, driver, warm.wait)  # the first graded turn started the pool
    print(
        f"(b) {args.clients} clients while 5000x5000-plot turns are graded, {args.seconds:.0f} s ...",
        flush=True,
    )
    niceness = worker_niceness(server.pid)
    busy = await read_load(api, ids, args.clients, args.seconds, args.think)
    stop.set()
    turns = drain(report, driver)
    summarize(args, idle, busy, turns, niceness)


def wait_for(driver, wait, timeout: float = 600) -> None:
    """``wait(timeout=1)`` until it succeeds, while the driver lives."""
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if not driver.is_alive():
            raise RuntimeError(f"the turn driver exited ({driver.exitcode})")
        try:
            if wait(timeout=1) is not False:
                return
        except queue.Empty:
            pass
    raise TimeoutError("the turn driver did not get ready")


def drain(report, driver) -> list[tuple]:
    driver.join(600)
    turns = []
    while not report.empty():
        item = report.get()
        if item[0] == "turn":
            turns.append(item[1:])
    return turns


def summarize(args, idle: list[float], busy: list[float], turns: list[tuple], niceness: list[int]) -> None:
    (a50, a95), (b50, b95) = quantiles(idle), quantiles(busy)
    print(f"\nGET /cibench-lab/api/attempts/{{id}}: {args.clients} clients, think {args.think * 1000:.0f} ms")
    print(f"{'phase':<34}{'requests':>10}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'(a) no grading':<34}{len(idle):>10}{a50:>10.1f}{a95:>10.1f}")
    print(f"{'(b) 5000x5000 turns being graded':<34}{len(busy):>10}{b50:>10.1f}{b95:>10.1f}")
    print(f"p95 ratio (b)/(a): {b95 / a95:.2f}  (target <= 2)   p50 ratio: {b50 / a50:.2f}")
    seconds = [t[0] for t in turns]
    if seconds:
        print(f"plot turns graded (incl. the warm-up): {len(turns)}, run + report + grade "
              f"median {statistics.median(seconds):.1f} s; last grade: {turns[-1][1]}")  # fmt: skip
    print(f"grading workers seen during (b): {len(niceness)} at niceness {sorted(set(niceness)) or '-'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each phase (default 60)")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=4, help="attempts the clients read (one kernel each)")
    parser.add_argument("--think", type=float, default=0.05, help="seconds a client waits between reads")
    parser.add_argument("--workers", type=int, default=2, help="the server's grading_workers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cibench-bench-") as tmp:
        write_tasks(Path(tmp) / "tasks", plot_steps=max(30, int(args.seconds)))
        port = free_port()
        token = uuid.uuid4().hex
        server = start_server(Path(tmp), port, token, args.workers)
        log = Path(tmp) / "server.log"
        try:
            asyncio.run(phases(args, Api(f"http://127.0.0.1:{port}", token), server, log))
        except Exception:
            print("server log (tail):\n" + log.read_text(errors="replace")[-4000:], file=sys.stderr)
            raise
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
