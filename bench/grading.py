"""Grading cost per step kind and profile, next to a trivial cell's round trip in the same kernel.

    python bench/grading.py [--repeat N]

Not a timed test: it prints a table of milliseconds and ratios.  Targets (issue 4):
exec/num/text grading <= 10% of the round trip; SSIM on a typical plot <= 50 ms.
"cold" clears the image caches first (a new image); "warm" is the same turn
graded again (what happens when a later turn re-grades the step's history).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from cibench_lab.grading import PROFILES, TurnOutput, grade
from cibench_lab.grading import images as images_mod
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.tasks.format import reference_output
from cibench_lab.tasks.model import Step

PLOT = """import matplotlib.pyplot as plt
import numpy as np
x = np.linspace(0, 10, 200)
fig, ax = plt.subplots(figsize=(8, 5))
ax.plot(x, np.sin(x), label='sin'); ax.plot(x, np.cos(x), label='cos')
ax.set_title('A typical plot'); ax.legend(); plt.show()"""
CASES = {
    "exec": "a = [i * i for i in range(100)]",
    "num": "print(round(sum(range(1000)) / 7, 4))",
    "general": "import pandas as pd\npd.DataFrame({'a': range(20), 'b': [i / 3 for i in range(20)]})",
    "text": "print('The model reached an accuracy of 0.93 on the held-out test set after tuning.')",
    "vis": PLOT,
}


def clear_caches() -> None:
    images_mod._resavable.cache_clear()
    images_mod._cached.cache_clear()


def time_ms(fn, repeat: int, cold: bool) -> float:
    samples = []
    for _ in range(repeat):
        if cold:
            clear_caches()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


async def measure(repeat: int) -> list[tuple[str, str, float, float, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        ex = KernelExecutor(Path(tmp))
        await ex.start()
        try:
            trips = []
            for _ in range(repeat):
                start = time.perf_counter()
                await ex.run("1 + 1")
                trips.append((time.perf_counter() - start) * 1000)
            trip = statistics.median(trips)
            runs = {kind: await ex.run(code) for kind, code in CASES.items()}
            # the vis reference: the same plot with another title, so SSIM really runs
            runs["vis_ref"] = await ex.run(PLOT.replace("A typical plot", "The reference plot"))
        finally:
            await ex.shutdown()
    rows = []
    for kind in CASES:
        turn = TurnOutput(CASES[kind], runs[kind].outputs)
        ref = reference_output(runs["vis_ref" if kind == "vis" else kind].outputs, "bench", 0)
        step = Step(0, "Do it, rounded to 4 decimal places.", " ", CASES[kind], (), ref, kind, (), "Do it.\n")
        grade(step, [turn], "cibench")  # imports and scorer construction out of the way
        for profile in PROFILES:
            cold = time_ms(lambda s=step, t=turn, p=profile: grade(s, [t], p), repeat, cold=True)
            warm = time_ms(lambda s=step, t=turn, p=profile: grade(s, [t], p), repeat, cold=False)
            rows.append((kind, profile, cold, warm, trip))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    rows = asyncio.run(measure(args.repeat))
    trip = rows[0][4]
    print(f"trivial cell round trip (median of {args.repeat}): {trip:.2f} ms")
    print(f"{'kind':<8}{'profile':<9}{'cold ms':>9}{'warm ms':>9}{'cold/trip':>11}{'warm/trip':>11}")
    for kind, profile, cold, warm, _ in rows:
        print(f"{kind:<8}{profile:<9}{cold:>9.2f}{warm:>9.2f}{cold / trip:>10.1%}{warm / trip:>10.1%}")


if __name__ == "__main__":
    main()
