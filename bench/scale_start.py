"""The Start half of bench/scale.py: Start pressed -> answer cell focused, kernel idle, on a lab
server with the warm kernel pool off (cold) and one with it on (warm), measured interleaved.

Both servers run at once, each with its own page in one headless chromium. Before the first
Start both are left to go quiet (the warm server fills its pool when it starts: that is not a
Start's cost); then Starts alternate between them — cold, warm, warm, cold, cold, warm, ...
(ABBA), so the machine's drift falls on both sides alike. Before each Start the page waits
``gap`` seconds (a person reads the task list; the warm server's pool refills meanwhile), and
the *other* server is let go quiet first, so a refill on the warm side never lands on a cold
Start (its own refill it gets only the gap for, as a person would give it).
"""

from __future__ import annotations

import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import psutil
from lab import SERVER_ARGS, Starts
from lab_page import Api, Deadline, new_lab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ui.lab import TOKEN, LabServer, launch_chromium, stop_processes  # noqa: E402

SIDES = {"cold": [], "warm": ["--CIBenchLabApp.kernel_pool_size=1"]}
QUIET_CPU = 0.1  # a server's tree is quiet below this share of one CPU ...
QUIET_WINDOW = 0.5  # ... over this many seconds
TARGET_RATIO, TARGET_P95_MS = 0.5, 1000.0


def cpu_seconds(server: LabServer) -> float:
    """CPU time so far of the server and everything it started (its kernels, sandboxes)."""
    if server.proc is None:
        return 0.0
    total = 0.0
    try:
        root = psutil.Process(server.proc.pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            continue
    return total


def quiet(server: LabServer, limit: float) -> float:
    """Wait until ``server`` uses under QUIET_CPU of a CPU (at most ``limit`` s); the seconds waited."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        before = cpu_seconds(server)
        time.sleep(QUIET_WINDOW)
        if cpu_seconds(server) - before < QUIET_CPU * QUIET_WINDOW:
            break
    return time.monotonic() - began


def order(n: int) -> list[str]:
    """``n`` rounds of a cold and a warm Start, ABBA: cold warm, warm cold, cold warm, ..."""
    return [side for i in range(n) for side in (("cold", "warm") if i % 2 == 0 else ("warm", "cold"))]


def start_half(task_id: str, starts: int, gap: float, load) -> dict:
    """``starts`` Starts of ``task_id`` on each side, interleaved; per side bench/lab.py's summary."""
    print(
        f"start: {starts} starts of {task_id} per side, interleaved, {gap:.0f} s apart; {load()}",
        file=sys.stderr,
    )
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cibench-bench-start-") as tmp, ExitStack() as stack:
        # undone last to first: the browser, then the servers, then anything of ours left, by PID
        stack.callback(lambda: stop_processes(psutil.Process().children(recursive=True)))
        servers = {}
        for side, extra in SIDES.items():
            root = Path(tmp) / side / "workspace"
            root.mkdir(parents=True)
            servers[side] = LabServer(root, Path(tmp) / side / "results.sqlite", args=[*SERVER_ARGS, *extra])
            stack.callback(servers[side].kill)
        for server in servers.values():
            server.start()
        waited = {side: quiet(server, 300) for side, server in servers.items()}
        print(f"  servers quiet after {waited['cold']:.0f}/{waited['warm']:.0f} s; {load()}", file=sys.stderr)
        pw = stack.enter_context(sync_playwright())
        browser = launch_chromium(pw)
        stack.callback(browser.close)
        pages = {side: (new_lab(browser, s.url, TOKEN), Api(s.url, TOKEN)) for side, s in servers.items()}
        found = {side: Starts() for side in SIDES}
        loads: list[float] = []
        deadline = Deadline(1800)
        for i, side in enumerate(order(starts)):
            deadline.check(f"start {i + 1} of {2 * starts}")
            quiet(servers["warm" if side == "cold" else "cold"], 30)
            time.sleep(gap)
            loads.append(psutil.getloadavg()[0])
            ms = found[side].start(*pages[side], task_id)
            print(
                f"  {side} {len(found[side].ready)}/{starts}: {ms:.0f} ms; load {loads[-1]:.2f}",
                file=sys.stderr,
            )
        result = {side: found[side].summary(pages[side][0]) for side in SIDES}
    result["load"] = f"load average (1 min) {min(loads):.2f}-{max(loads):.2f} over the Starts"
    return result


def start_report(found: dict) -> list[str]:
    lines = ["\nStart pressed -> answer cell focused, kernel idle (cold and warm interleaved)"]
    lines.append(f"  {'':<8}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'first ms':>10}  answer cell")
    for side in SIDES:
        s, how = found[side]["ready_ms"], found[side]["answer_cell"]
        cells = ", ".join(f"{k} {v}" for k, v in sorted(how.items()))
        lines.append(
            f"  {side:<8}{s['p50']:>8.0f}{s['p95']:>8.0f}{s['max']:>8.0f}{s['first']:>10.0f}  {cells}"
        )
    cold, warm = found["cold"]["ready_ms"]["p95"], found["warm"]["ready_ms"]["p95"]
    ok = warm <= TARGET_RATIO * cold and warm <= TARGET_P95_MS
    lines.append(f"  {found['load']}")
    lines.append(
        f"warm p95 / cold p95 = {warm / cold:.2f} (target <= {TARGET_RATIO}), warm p95 {warm:.0f} ms "
        f"(target <= {TARGET_P95_MS:.0f}): {'meets' if ok else 'MISSES'} the targets"
    )
    return lines
