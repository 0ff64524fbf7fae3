"""The Grader grades off the calling thread and returns exactly what grade_all returns."""

from __future__ import annotations

import ast
import asyncio
import base64
import io
import os
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from test_grading_golden import CORPUS, step_of, turns_of

import cibench_lab.grading
from cibench_lab.grading import TurnOutput, grade_all
from cibench_lab.grading.pool import NICENESS, Grader, heavy
from cibench_lab.tasks.model import ReferenceOutput, Step


@pytest.fixture(scope="module")
def grader():
    g = Grader(workers=2)
    yield g
    g.close()


def plot_png(title: str, size: tuple[float, float] = (6, 4)) -> str:
    """A real matplotlib figure, as the kernel's inline backend sends it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.linspace(0, 10, 200)
    fig, ax = plt.subplots(figsize=size)
    ax.plot(x, np.sin(x), label="sin")
    ax.plot(x, np.cos(x), label="cos")
    ax.set_title(title)
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def vis_step(reference: str) -> Step:
    ref = ReferenceOutput("vis", reference)
    return Step(0, "Plot sin and cos.", " ", "", (), ref, "vis", (), "Plot sin and cos.\n")


def shown(png: str) -> TurnOutput:
    out = {
        "output_type": "display_data",
        "data": {"image/png": png, "text/plain": "<Figure>"},
        "metadata": {},
    }
    return TurnOutput("plt.show()", [out])


def grade(grader: Grader, step: Step, turns: list[TurnOutput]) -> dict:
    return asyncio.run(grader.grade(step, turns))


def test_vis_with_a_real_plot_is_graded_in_a_process_as_grade_all(grader):
    step = vis_step(plot_png("the reference"))
    failed = TurnOutput("plt.plot(", [{"output_type": "error", "ename": "SyntaxError", "evalue": "x"}], True)
    turns = [failed, shown(plot_png("mine", (8, 4)))]
    assert heavy(turns)
    grades = grade(grader, step, turns)
    assert grades == grade_all(step, turns)
    assert 0 < grades["cibench"]["score"] < 1 and grades["fair"]["detail"].startswith("plot SSIM")
    assert grader._processes is not None  # the pool was started for it


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_every_golden_case_grades_as_grade_all(grader, case):
    """num, text, general, exec and vis cases, hostile ones included (bombs, broken PNGs)."""
    step, turns = step_of(case), turns_of(case)
    assert grade(grader, step, turns) == grade_all(step, turns)


def test_heavy_turns_have_an_image_or_long_output():
    short = [TurnOutput("print(1)", [{"output_type": "stream", "name": "stdout", "text": "1\n"}])]
    long = [
        TurnOutput("print(x)", [{"output_type": "stream", "name": "stdout", "text": ["ab" * 60_000] * 2}])
    ]
    assert not heavy(short) and heavy(long) and heavy([shown("iVBOR")])


def test_workers_run_at_lower_priority(grader):
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    theirs = grader.processes().submit(os.getpriority, os.PRIO_PROCESS, 0).result(timeout=120)
    assert theirs == min(mine + NICENESS, 19)
    assert grader.processes().submit(os.getpid).result(timeout=120) != os.getpid()


def test_a_dead_worker_is_replaced():
    g = Grader(workers=1)
    try:
        pool = g.processes()
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 3).result(timeout=120)
        step = vis_step(plot_png("ref"))
        turns = [shown(plot_png("mine"))]
        assert grade(g, step, turns) == grade_all(step, turns)
        assert g._processes is not pool
    finally:
        g.close()


def test_grading_imports_nothing_from_models():
    root = Path(cibench_lab.grading.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                name = ("." * node.level) + (node.module or "")
                assert not name.startswith("..models") and "cibench_lab.models" not in name, (path, name)
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("cibench_lab.models") for a in node.names), path


def test_warm_processes_starts_one_process_with_the_image_libraries_loaded():
    g = Grader(workers=2)
    try:
        assert g._processes is None  # nothing started until asked
        g.warm_processes()
        pool = g._processes
        assert pool is not None
        loaded = pool.submit(_loaded, "skimage.metrics").result(timeout=120)
        assert loaded  # the initializer ran before the first plot arrives
        g.warm_processes()  # a second call keeps the same pool
        assert g._processes is pool
    finally:
        g.close()


def _loaded(module: str) -> bool:
    import sys

    return module in sys.modules
