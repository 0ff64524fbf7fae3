"""Benchmark: a person's play in the lab, timed in the page — Start, and run → final badge.

A real `jupyter lab` (kernel sandbox on, the default; the run stops if an attempt's view says
it is off) and Debian's headless chromium driven by Playwright, started as the browser tests
start them (tests/ui/lab.py). One run measures, side by side:

start   Start pressed (the click on .jp-CIBench-start) -> the new attempt's first answer cell
        focused (or at least active) with its editor, and its kernel bound (the panel's
        ``POST attempts/{id}/kernel`` answered: the server has run the start code) and idle.
        An answer cell neither focused nor active 3 s after the rest held counts as "present",
        timed when the rest held. ``--starts`` new attempts of ``--task`` through the panel
        (back to the task list by its "All tasks" button, else on a fresh page); each
        attempt's kernel is shut down and its notebook closed once it is measured. Also
        printed: when the answer cell showed, the binding answered, and the kernel was last
        seen busy (the JSON names the requests that kept it busy).
badge   execution finished -> final badge, per step kind (exec, num, text, vis): ``--runs``
        runs of the reference code of the task's first step of each kind, re-run in that open
        step's answer cell (each run a turn; the server runs with turn_cap=0, so runs never
        settle the step). Execution finished = the page's kernel connection receives the
        execute_reply to the cell's execute_request (``Kernel.anyMessage``, shell channel);
        final badge = a MutationObserver sees the cell's .jp-CIBench-badge with class
        jp-CIBench-badge-pass or -miss (and data-state="final" where badges have one), new
        since the run started.
plain   a plain (non-answer) code cell's round trip on the same kernel (execute_request sent
        -> execute_reply received), alternated with the badge runs.

Steps between the measured ones run their reference once and are settled through the API
(``POST attempts/{id}/next``, not the panel's Next step button); the page is then reloaded and
the notebook attaches the new step. Targets (issue 12): badge p95 <= 100 ms for exec, num and
text, <= 250 ms for vis. A benchmark, not a test.

    python bench/lab.py [--starts 20] [--runs 50] [--task ID] [--json PATH] [--timeout 1800]
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import psutil
from lab_page import Api, Deadline, Lab, new_lab
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.model import Task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ui.lab import TOKEN, LabServer, launch_chromium, stop_processes  # noqa: E402

KINDS = ("exec", "num", "text", "vis")
WIDTHS = (6, 5, 6, 11, 9, 9, 9, 9, 12, 12)  # the badge table's columns
TARGET_P95 = {"exec": 100.0, "num": 100.0, "text": 100.0, "vis": 250.0}
SERVER_ARGS = [
    "--LabApp.expose_app_in_browser=True",  # window.jupyterapp: the probe reads the kernel connection
    "--CIBenchLabApp.turn_cap=0",  # repeated runs never settle the step
    "--CIBenchLabApp.lock_settings=True",  # the server's settings, whatever the browser sends
]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100), linear between the closest ranks."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(xs) - 1)
    return xs[low] + (xs[high] - xs[low]) * (pos - low)


def stats(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "max": max(values, default=float("nan")),
        "first": values[0] if values else float("nan"),
    }


def bench_task(task_id: str) -> tuple[Task, dict[str, int]]:
    """The task and, per kind, its first step of that kind; SystemExit unless it has all four."""
    task = TaskLibrary.load([builtin_dir()]).tasks.get(task_id)
    if task is None:
        raise SystemExit(f"--task: no built-in task {task_id!r}")
    first: dict[str, int] = {}
    for index, step in enumerate(task.steps):
        first.setdefault(step.kind, index)
    missing = [k for k in KINDS if k not in first]
    if missing:
        raise SystemExit(f"--task: {task_id} has no step of kind {', '.join(missing)}")
    return task, {k: first[k] for k in KINDS}


# ---- the two measurements --------------------------------------------------------------
class Starts:
    """The samples of one server's Starts: Start pressed -> ready, and the moments in between."""

    def __init__(self) -> None:
        self.ready: list[float] = []
        self.parts: dict[str, list[float]] = {k: [] for k in ("created", "shown", "bound", "idle")}
        self.how: Counter = Counter()
        self.records: list[dict] = []

    def start(self, lab: Lab, api: Api, task_id: str) -> float:
        """One Start of ``task_id``, measured; its attempt's notebook closed (its kernel shut down)."""
        rec, attempt_id = lab.start(api, task_id)
        api.sandboxed_view(attempt_id)
        lab.close_started()
        self.ready.append(rec["ready"] - rec["t0"])
        self.parts["created"].append((rec["created"] or float("nan")) - rec["t0"])
        self.parts["shown"].append(rec["present"] - rec["t0"])
        self.parts["bound"].append(rec["bound"] - rec["t0"])
        self.parts["idle"].append((rec["lastNotIdle"] or rec["present"]) - rec["t0"])
        self.how[rec["how"]] += 1
        self.records.append(rec)
        return self.ready[-1]

    def summary(self, lab: Lab) -> dict:
        return {
            "ready_ms": stats(self.ready),
            "attempt_created_ms": stats(self.parts["created"]),
            "answer_shown_ms": stats(self.parts["shown"]),
            "kernel_bound_ms": stats(self.parts["bound"]),
            "kernel_last_busy_ms": stats(self.parts["idle"]),
            "answer_cell": dict(self.how),
            "fresh_pages": len(lab.tries),
            "samples_ms": self.ready,
            "records": self.records,  # the probe's page times (performance.now() ms), per start
        }


def measure_starts(lab: Lab, api: Api, task_id: str, n: int, deadline: Deadline) -> dict:
    """``n`` Starts of ``task_id``, one after another."""
    starts = Starts()
    for i in range(n):
        deadline.check(f"start {i + 1} of {n}")
        ms = starts.start(lab, api, task_id)
        print(f"  start {i + 1}/{n}: {ms:.0f} ms ({starts.records[-1]['how']})", file=sys.stderr)
    return starts.summary(lab)


def measure_kinds(lab: Lab, api: Api, task: Task, first: dict[str, int], runs: int, deadline: Deadline):
    """Play the task up to the last measured step; M runs + M plain runs at each measured one."""
    since = lab.now()
    _, attempt_id = lab.start(api, task.id)
    view = api.sandboxed_view(attempt_id)
    lab.wait_step(0, since)
    measured = {step: kind for kind, step in first.items()}
    kinds: dict[str, dict] = {}
    plain: list[float] = []
    for step in range(max(measured) + 1):
        if view["kinds"][step] != task.steps[step].kind:
            raise RuntimeError(f"step {step + 1}: the server says {view['kinds'][step]}")
        lab.type_answer(step, task.steps[step].code)
        if step in measured:
            kind = measured[step]
            kinds[kind] = repeat_runs(lab, step, runs, plain, deadline)
            kinds[kind]["step"] = step
        else:
            lab.run(step, plain=False)  # the state the next steps need
        if step < max(measured):
            api.call("POST", f"attempts/{attempt_id}/next", {"step": step})
            lab.reopen_at(view["notebook_path"], step + 1)
    return view, kinds, plain


def repeat_runs(lab: Lab, step: int, runs: int, plain: list[float], deadline: Deadline) -> dict:
    lab.add_plain_cell(step)
    badge, trip, idle, shown = [], [], [], Counter()
    for i in range(runs):
        deadline.check(f"run {i + 1} of step {step + 1}")
        rec = lab.run(step, plain=False)
        badge.append(rec["badge"] - rec["reply"])
        trip.append(rec["reply"] - rec["send"])
        idle.append(rec["idle"] - rec["reply"])
        shown[f"{'pass' if rec['pass'] else 'miss'}: {rec['text']}"] += 1
        other = lab.run(step, plain=True)
        plain.append(other["reply"] - other["send"])
    return {
        "badge_ms": stats(badge),
        "run_ms": stats(trip),
        "reply_to_idle_ms": stats(idle),
        "badges": dict(shown),
        "samples_ms": badge,
    }


# ---- the report ------------------------------------------------------------------------
def report(result: dict) -> str:
    env, st = result["environment"], result["starts"]
    lines = [
        f"bench/lab.py — {result['task']}; kernel sandbox {env['sandbox']}; profile {env['profile']}, "
        f"grade rule {env['grade_rule']}, turn_cap {env['turn_cap']}; headless chromium 1400x900; "
        f"{result['seconds']:.0f} s",
        "",
        f"Start pressed -> answer cell ready, kernel bound and idle ({st['ready_ms']['n']} starts)",
        f"  {'':<26}{'p50 ms':>8}{'p95 ms':>8}{'max ms':>8}{'first ms':>10}",
    ]
    rows = (
        ("ready", "ready_ms"),
        ("attempt created (POST)", "attempt_created_ms"),
        ("answer cell shown", "answer_shown_ms"),
        ("kernel bound", "kernel_bound_ms"),
        ("kernel last not idle", "kernel_last_busy_ms"),
    )
    for label, key in rows:
        s = st[key]
        lines.append(f"  {label:<26}{s['p50']:>8.0f}{s['p95']:>8.0f}{s['max']:>8.0f}{s['first']:>10.0f}")
    cells = ", ".join(f"{how} {count}" for how, count in sorted(st["answer_cell"].items()))
    fresh = f"; {st['fresh_pages']} starts needed a fresh page" if st["fresh_pages"] else ""
    lines += [f"  the answer cell was: {cells} (no target here){fresh}", ""]
    lines += badge_table(result["kinds"], stats(result["plain_samples_ms"]))
    return "\n".join(lines)


def row(cells) -> str:
    first, *rest = cells
    return f"  {first:<{WIDTHS[0]}}" + "".join(f"{c:>{w}}" for c, w in zip(rest, WIDTHS[1:], strict=False))


def badge_table(kinds: dict, plain: dict) -> list[str]:
    head = ("kind", "step", "runs", "badge p50", "p95", "max", "first", "run p50", "/plain p50", "/plain p95")
    lines = [
        "Execution finished (execute_reply in the page) -> final badge, ms",
        row(head) + "  target p95",
    ]
    for kind in KINDS:
        k = kinds[kind]
        b = k["badge_ms"]
        ok = "OK" if b["p95"] <= TARGET_P95[kind] else "MISS"
        cells = [kind, k["step"] + 1, b["n"], *(f"{b[q]:.1f}" for q in ("p50", "p95", "max", "first"))]
        cells += [
            f"{k['run_ms']['p50']:.1f}",
            f"{b['p50'] / plain['p50']:.1f}x",
            f"{b['p95'] / plain['p95']:.1f}x",
        ]
        lines.append(row(cells) + f"  <= {TARGET_P95[kind]:.0f} {ok}")
    cells = ["plain", "-", plain["n"], *(f"{plain[q]:.1f}" for q in ("p50", "p95", "max", "first"))]
    lines += [
        row(cells),
        "  (step: 1-based; run: the answer cell's execute_request -> execute_reply; plain: a plain",
        "  cell's on the same kernel; /plain: badge over plain round trip, p50 to p50 and p95 to p95)",
        "  badges shown on the repeated runs:",
    ]
    for kind in KINDS:
        shown = "; ".join(f"{text!r} x{n}" for text, n in kinds[kind]["badges"].items())
        lines.append(f"    {kind}: {shown}")
    return lines


# ---- the run ---------------------------------------------------------------------------
def measure(args, url: str, browser) -> dict:
    task, first = bench_task(args.task)
    deadline = Deadline(args.timeout)
    api = Api(url, TOKEN)
    lab = new_lab(browser, url, TOKEN)
    began = time.monotonic()
    print(f"{args.starts} starts of {task.id}", file=sys.stderr)
    starts = measure_starts(lab, api, task.id, args.starts, deadline)
    print(f"{args.runs} runs per kind at steps {[s + 1 for s in first.values()]}", file=sys.stderr)
    view, kinds, plain = measure_kinds(lab, api, task, first, args.runs, deadline)
    settings = view.get("settings") or {}
    return {
        "task": task.id,
        "seconds": time.monotonic() - began,
        "environment": {
            "sandbox": "on (bubblewrap)" if view["sandbox"].get("tool") == "bubblewrap" else "on",
            "profile": view.get("profile"),
            "grade_rule": settings.get("grade_rule", "settling"),
            "turn_cap": settings.get("turn_cap"),
        },
        "starts": starts,
        "kinds": kinds,
        "plain_samples_ms": plain,
        "targets_p95_ms": TARGET_P95,
    }


SIGNALS: list[int] = []


def interrupted(signum, frame):
    SIGNALS.append(signum)
    raise KeyboardInterrupt(f"signal {signum}")


def run(args, tmp: Path) -> dict:
    """Start the server and the browser, measure, and stop every process started, by PID."""
    root = tmp / "workspace"
    root.mkdir()
    server = LabServer(root, tmp / "results.sqlite", args=SERVER_ARGS)  # its own lab settings and workspaces
    try:
        server.start()
        with sync_playwright() as pw:
            browser = launch_chromium(pw)
            try:
                return measure(args, server.url, browser)
            finally:
                try:
                    browser.close()
                except PlaywrightError:
                    pass  # a Ctrl+C reached the browser too
    finally:
        server.kill()
        stop_processes(psutil.Process().children(recursive=True))  # anything of ours still there


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=20, help="new attempts timed from Start (default 20)")
    ap.add_argument("--runs", type=int, default=50, help="runs per step kind (default 50)")
    ap.add_argument("--task", default="cibench_template/pandas/penguins_raw_tidy", help="a built-in task id")
    ap.add_argument("--json", type=Path, help="also write every sample and the summary here")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds for the whole run (default 1800)")
    args = ap.parse_args()
    if args.starts < 1 or args.runs < 1:
        ap.error("--starts and --runs must be >= 1")
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    try:
        with tempfile.TemporaryDirectory(prefix="cibench-bench-lab-") as tmp:
            result = run(args, Path(tmp))
    except (KeyboardInterrupt, PlaywrightError):
        if not SIGNALS:
            raise
        print(f"bench/lab.py: interrupted (signal {SIGNALS[0]}); its server, kernels and browser are stopped")
        return 130
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
