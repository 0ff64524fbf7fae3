"""Soak: many Starts and ends on one lab server — does anything it holds grow?

One real `jupyter lab` (kernel sandbox on, as people get it), driven without a browser the way
the lab drives it: ``POST attempts`` (Start: the attempt's folder, session, sandboxed kernel and
start code), one cell run over the server's kernel websocket and reported as the step's turn
(``POST attempts/{id}/turns``), then the end — the attempt's Jupyter session deleted, as closing
the notebook and shutting its kernel down does. ``--count`` such cycles, one after another.

Measured of the server's process (not its kernels): open file descriptors, sockets (``socket:``
links in /proc/PID/fd), eventfds (``anon_inode:[eventfd]``: each ZMQ socket's mailbox holds one,
so they follow the ZMQ sockets the server opens to kernels), threads and RSS — before the first
Start, after the first ten (the baseline: a first Start loads modules and opens pools once), every
``--every`` Starts and at the end, each time once the ended kernels are gone; and the Start's
latency (POST attempts sent -> answered) p50/p95 per ``--every``. A benchmark, not a test.

    python bench/soak.py [--count 1000] [--every 100] [--task ID] [--timeout 3600] [--log PATH]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psutil
from lab import percentile

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from labclient import LabClient  # noqa: E402
from ui.lab import TOKEN, LabServer, stop_processes  # noqa: E402

WARMUP = 10  # Starts before the baseline sample
SETTLE_S = 60.0  # at most this long for the ended kernels to be gone before a sample
SERVER_ARGS = ["--CIBenchLabApp.turn_cap=0"]  # the one turn never settles the step: the end is the close


def sample(server: LabServer) -> dict:
    """What the server's process holds now."""
    proc = psutil.Process(server.proc.pid)
    links = []
    for fd in os.listdir(f"/proc/{proc.pid}/fd"):
        try:
            links.append(os.readlink(f"/proc/{proc.pid}/fd/{fd}"))
        except OSError:
            continue  # closed meanwhile
    return {
        "fds": len(links),
        "sockets": sum(link.startswith("socket:") for link in links),
        "eventfds": sum(link == "anon_inode:[eventfd]" for link in links),
        "threads": proc.num_threads(),
        "rss_mib": proc.memory_info().rss / 2**20,
        "children": len(proc.children(recursive=True)),
    }


def settled(server: LabServer, api: LabClient, children: int) -> dict:
    """A sample once no kernel runs and the server has no more processes than at ``children``."""
    end = time.monotonic() + SETTLE_S
    while time.monotonic() < end:
        _, kernels = api.call("GET", "/api/kernels")
        now = sample(server)
        if not kernels and now["children"] <= children:
            return now
        time.sleep(0.5)
    return sample(server)


def cycle(api: LabClient, task_id: str) -> float:
    """One Start, its turn and its end; the Start's latency in ms."""
    began = time.perf_counter()
    code, attempt = api.call("POST", "attempts", {"task_id": task_id, "mode": "e2e"})
    ms = (time.perf_counter() - began) * 1000
    if code != 201:
        raise RuntimeError(f"Start answered {code}: {attempt}")
    kernel = attempt["kernel_id"]
    msg_id = api.run_cell(kernel, "soak = 1")
    code, turn = api.call(
        "POST", f"attempts/{attempt['id']}/turns", {"step": 0, "kernel_id": kernel, "msg_id": msg_id}
    )
    if code != 200:
        raise RuntimeError(f"the turn answered {code}: {turn}")
    _, sessions = api.call("GET", "/api/sessions")
    for s in sessions:
        if s["kernel"]["id"] == kernel:
            code, _ = api.call("DELETE", f"/api/sessions/{s['id']}")
            if code != 204:
                raise RuntimeError(f"closing the session answered {code}")
    return ms


def row(label: str, s: dict, lat: list[float] | None = None) -> str:
    line = (
        f"  {label:<10}{s['fds']:>6}{s['sockets']:>9}{s['eventfds']:>10}{s['threads']:>9}"
        f"{s['rss_mib']:>10.0f}{s['children']:>10}"
    )
    if lat:
        line += f"{percentile(lat, 50):>9.0f}{percentile(lat, 95):>9.0f}"
    return line


def last_error(log: Path) -> list[str]:
    """The server log's last error and what follows it (its traceback), at most 40 lines."""
    text = log.read_text(errors="replace").splitlines()
    marks = [i for i, line in enumerate(text) if line.startswith("[E ")]
    return text[marks[-1] : marks[-1] + 40] if marks else text[-20:]


def soak(args, server: LabServer, api: LabClient, lines: list[str]) -> None:
    """The Starts, sampled; stops at --timeout or at a Start that fails (said in ``lines``)."""
    start = settled(server, api, 10**6)
    lines.append(row("start", start))
    began = time.monotonic()
    lat: list[float] = []
    for i in range(1, args.count + 1):
        if time.monotonic() - began > args.timeout:
            lines.append(f"  --timeout {args.timeout:.0f} s reached: stopped after {i - 1} Starts")
            break
        try:
            lat.append(cycle(api, args.task))
        except (RuntimeError, OSError) as err:
            lines.append(f"  Start {i} failed: {err}")
            lines += [f"  | {line}" for line in last_error(server.log)]
            break
        if i == WARMUP or i % args.every == 0 or i == args.count:
            label = f"{i} (base)" if i == WARMUP else str(i)
            lines.append(row(label, settled(server, api, start["children"]), lat[-args.every :]))
            print(lines[-1], file=sys.stderr, flush=True)
    lines.append(f"  {len(lat)} Starts in {time.monotonic() - began:.0f} s")


def own_kernelspec(tmp: Path) -> None:
    """The server writes and reads its kernelspec under ``tmp``, not the shared environment's:
    another checkout's server or test rewriting that one (an older version's launcher) would
    fail every later Start of a soak that takes an hour (its spec guard refuses the kernel)."""
    prefix = tmp / "jupyter"
    prefix.mkdir()
    os.environ["CIBENCH_LAB_KERNEL_PREFIX"] = str(prefix)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(prefix), os.environ.get("JUPYTER_PATH")]))


def run(args, tmp: Path) -> list[str]:
    root = tmp / "workspace"
    root.mkdir()
    own_kernelspec(tmp)
    server = LabServer(root, tmp / "results.sqlite", args=SERVER_ARGS)
    api = LabClient(server.url, TOKEN)
    lines = [
        f"{'':<12}{'fds':>6}{'sockets':>9}{'eventfds':>10}{'threads':>9}{'RSS MiB':>10}{'children':>10}"
        f"{'p50 ms':>9}{'p95 ms':>9}"
    ]
    try:
        server.start()
        time.sleep(5)  # the server's own start-up work done
        soak(args, server, api, lines)
    finally:
        server.kill()
        stop_processes(psutil.Process().children(recursive=True))
        if args.log:
            shutil.copyfile(server.log, args.log)
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000, help="Starts (default 1000)")
    ap.add_argument("--every", type=int, default=100, help="Starts between samples (default 100)")
    ap.add_argument("--task", default="cibench_template/pandas/penguins_raw_tidy", help="a built-in task id")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds of Starts at most (default 3600)")
    ap.add_argument("--log", type=Path, help="keep the server's log here")
    args = ap.parse_args()
    if args.count < 1 or args.every < 1:
        ap.error("--count and --every must be >= 1")
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )
    mem = psutil.virtual_memory().total / 2**30
    print(f"bench/soak.py: {args.count} Starts of {args.task}, one turn each, then the session closed")
    print(
        f"on {cpu}, {os.cpu_count()} CPUs, {mem:.0f} GiB, {platform.platform()}; "
        f"load average (1 min) {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="cibench-bench-soak-") as tmp:
        lines = run(args, Path(tmp))
    print("\n".join(lines))
    print(f"load average (1 min) at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
