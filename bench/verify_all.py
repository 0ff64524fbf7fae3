"""Verify every task twice, side by side: under the machine's default BLAS and under a second setting.

    python bench/verify_all.py [--tasks PATTERN ...] [--jobs 2] [--timeout 120] [--threads 2]
                               [--coretype NAME] [--sandbox | --no-sandbox] [--first-only]

Pass 1 is ``cibench-lab tasks verify`` with its defaults: each reference re-executed in a fresh
kernel, every step compared with its stored reference under every grading profile.  Pass 2 runs
the same tasks again with another BLAS thread count and OpenBLAS core type: the kernel's BLAS and
OpenMP pools are resized to ``--threads`` once it has started (threadpoolctl, and the thread
variables for libraries loaded later), and ``OPENBLAS_CORETYPE`` picks other CPU kernels when the
library loads (the kernel-env's OpenBLAS is built with DYNAMIC_ARCH; the default second core is
``Prescott``, SSE3 only, or ``Haswell`` on a machine that already runs Prescott's).  Both settings
are read back from a kernel (threadpoolctl) and printed.  Pass 2 runs no more threads than cores
(``--jobs`` lowered to cores // threads) and gives each step three times ``--timeout``.  A
reference whose printed answer depends on the BLAS build (a rank-deficient least-squares fit)
shows up as a step whose outputs differ between the passes.

It prints the tasks, steps and kinds per split and library, each pass's time, every step whose
outputs differ under the second setting or that drifted in either pass (there must be none: exit
status 1), and apart, the vis steps whose PNG bytes alone differ while every profile grades them
the same (anti-aliased pixels moved by a low-bit change of a fit).  The issue's budget for one
pass: at most 15 minutes at ``--jobs 2`` on a 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from cibench_lab.authoring.verify import Verdict, verify_tasks
from cibench_lab.cli.common import start_sandbox
from cibench_lab.cli.tasks import verdict_lines, verifiable
from cibench_lab.tasks.library import TaskLibrary, builtin_dir
from cibench_lab.tasks.model import Task

BUDGET_SECONDS = 15 * 60
KINDS = ("exec", "num", "text", "vis", "general")  # general: a generation-split step printing text
#: Which kernels OpenBLAS runs on this CPU (threadpoolctl in the kernel environment).
_PROBE = (
    "import json, numpy, scipy.linalg, threadpoolctl\n"
    "print(json.dumps([[i['filepath'].rsplit('/', 1)[-1], i.get('architecture'), i['num_threads']]"
    " for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas']))"
)


def prelude(threads: int) -> str:
    """Kernel code that moves the BLAS and OpenMP pools to ``threads`` (run after the start code)."""
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS")
    env = {name: str(threads) for name in names}
    return (
        f"import os as _os\n_os.environ.update({env!r})\ndel _os\n"
        f"from threadpoolctl import threadpool_limits as _limits\n_limits({threads})\ndel _limits\n"
    )


def kernel_blas(code: str) -> list[list]:
    """[library, core type, threads] of each OpenBLAS loaded in a task kernel started as the passes
    start theirs (this process's environment, ``code`` as its prelude), numpy's and scipy's loaded."""
    from cibench_lab.kernels.executor import KernelExecutor

    async def probe() -> str:
        with tempfile.TemporaryDirectory(prefix="cibench-blas-") as folder:
            executor = KernelExecutor(Path(folder), timeout=120, prelude=code)
            try:
                await executor.start()
                ex = await executor.run(_PROBE)
            finally:
                await executor.shutdown()
        return "".join(o.get("text", "") for o in ex.outputs if o.get("output_type") == "stream")

    return json.loads(asyncio.run(probe()) or "[]")


def inventory(tasks: list[Task]) -> list[str]:
    """Tasks, steps and kinds per split and library."""
    groups: dict[tuple[str, str], list[Task]] = defaultdict(list)
    for task in tasks:
        groups[(task.split, task.lib)].append(task)
    header = f"{'split':<28} {'library':<11} {'tasks':>5} {'steps':>5}  "
    lines = [header + " ".join(f"{k:>7}" for k in KINDS)]
    for (split, lib), group in sorted(groups.items()):
        kinds = Counter(s.kind for t in group for s in t.steps)
        counts = " ".join(f"{kinds.get(k, 0):>7}" for k in KINDS)
        lines.append(f"{split:<28} {lib:<11} {len(group):>5} {sum(len(t.steps) for t in group):>5}  {counts}")
    kinds = Counter(s.kind for t in tasks for s in t.steps)
    total = " ".join(f"{kinds.get(k, 0):>7}" for k in KINDS)
    lines.append(f"{'total':<40} {len(tasks):>5} {sum(len(t.steps) for t in tasks):>5}  {total}")
    return lines


def verify_pass(
    tasks: list[Task], jobs: int, code: str, label: str, timeout: float
) -> tuple[list[Verdict], float]:
    """One ``tasks verify`` over ``tasks`` (``code``: the kernels' prelude; ``timeout``: seconds per
    step); verdicts and wall time."""

    def done(verdict: Verdict) -> None:
        if not verdict.ok or verdict.changed:
            print("\n".join(f"  [{label}] {line}" for line in verdict_lines(verdict)), flush=True)

    started = time.perf_counter()
    verdicts = asyncio.run(verify_tasks(tasks, jobs=jobs, timeout=timeout, on_done=done, prelude=code))
    return verdicts, time.perf_counter() - started


def drift_lines(task: Task, verdict: Verdict, label: str) -> list[str]:
    lines = [f"{task.id}: could not run under the {label} setting: {verdict.error}"] if verdict.error else []
    return lines + [
        f"{task.id} step {d.step + 1} [{d.kind}]: drifts under the {label} setting: {d.detail}"
        for d in verdict.drifts
    ]


def differences(
    tasks: list[Task], first: list[Verdict], second: list[Verdict]
) -> tuple[list[str], list[str]]:
    """Steps whose outputs differ between the passes or that drifted in either (there must be none);
    and vis steps whose PNG bytes alone differ, graded the same under every profile in both passes
    (a low-bit change of a fit moved anti-aliased pixels): listed apart."""
    differ, pixels = [], []
    for task, a, b in zip(tasks, first, second, strict=True):
        differ += drift_lines(task, a, "default") + drift_lines(task, b, "second")
        drifted = {d.step for d in a.drifts + b.drifts}
        for step in task.steps:
            da, db = a.digests.get(step.index), b.digests.get(step.index)
            if not da or not db or da == db or step.index in drifted:
                continue
            where = f"{task.id} step {step.index + 1} [{step.kind}]"
            if step.reference.kind == "vis":
                pixels.append(f"{where}: PNG bytes differ, graded the same under every profile")
            else:
                differ.append(f"{where}: outputs differ under the second setting")
    return differ, pixels


def pass_line(label: str, verdicts: list[Verdict], seconds: float, jobs: int) -> str:
    changed = sum(len(v.changed) for v in verdicts)
    budget = "within" if seconds <= BUDGET_SECONDS else "OVER"
    return (
        f"{label}: {seconds:.1f} s at --jobs {jobs} ({budget} the {BUDGET_SECONDS // 60}-minute budget); "
        f"{sum(not v.ok for v in verdicts)} tasks drifted, "
        f"{changed} outputs changed from the stored references"
    )


def second_coretype(default: list[list]) -> str:
    cores = {arch for _, arch, _ in default}
    return "Haswell" if "Prescott" in cores else "Prescott"


def run(tasks: list[Task], args: argparse.Namespace) -> int:
    print("\n".join(inventory(tasks)))
    os.environ.pop("OPENBLAS_CORETYPE", None)
    default = kernel_blas("")
    print(f"default setting (the kernelspec's): OpenBLAS in the kernel {default}", flush=True)
    first, seconds_1 = verify_pass(tasks, args.jobs, "", "default", args.timeout)
    print(pass_line("default pass", first, seconds_1, args.jobs), flush=True)
    if args.first_only:
        return 0 if all(v.ok for v in first) else 1
    code = prelude(args.threads)
    os.environ["OPENBLAS_CORETYPE"] = args.coretype or second_coretype(default)  # the sandbox passes it on
    try:
        second_blas = kernel_blas(code)
        print(
            f"second setting: threads {args.threads}, OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']}: "
            f"OpenBLAS in the kernel {second_blas}",
            flush=True,
        )
        # no more threads than cores: oversubscribed OpenMP pools (HistGradientBoosting) crawl
        jobs = max(1, min(args.jobs, (os.cpu_count() or 1) // args.threads))
        second, seconds_2 = verify_pass(tasks, jobs, code, "second", 3 * args.timeout)
    finally:
        os.environ.pop("OPENBLAS_CORETYPE", None)
    print(pass_line("second pass", second, seconds_2, jobs))
    lines, pixels = differences(tasks, first, second)
    print(f"steps whose outputs differ under the second setting: {len(lines)} (must be 0)")
    print("".join(f"  {line}\n" for line in lines), end="")
    print(f"vis steps whose PNG alone differs, graded the same: {len(pixels)}")
    print("".join(f"  {line}\n" for line in pixels), end="")
    return 1 if lines else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("patterns", nargs="*", help="task ids or globs (default: every built-in task)")
    parser.add_argument("--tasks", nargs="+", default=[], metavar="PATTERN", help="task ids or globs")
    parser.add_argument("--jobs", type=int, default=2, help="kernels at once (default 2)")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per step (default 120; x3 in pass 2)"
    )
    parser.add_argument("--threads", type=int, default=2, help="BLAS/OpenMP threads of the second pass")
    parser.add_argument("--coretype", help="OPENBLAS_CORETYPE of the second pass (default: Prescott)")
    parser.add_argument("--first-only", action="store_true", help="only the default pass")
    parser.add_argument(
        "--sandbox",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="task kernels in the bubblewrap sandbox (default), as the lab and `run` start them",
    )
    args = parser.parse_args()
    if not start_sandbox(argparse.Namespace(no_sandbox=not args.sandbox)):
        return 2
    lib = TaskLibrary.load([builtin_dir()])
    selection = args.patterns + args.tasks
    return run(verifiable(lib.select(selection or None)), args)


if __name__ == "__main__":
    sys.exit(main())
