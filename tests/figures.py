"""Real figures for the plot-grade tests: drawn on an Agg canvas, captured with the kernel's
own capture code (``kernels/inkernel/figure_capture.py``), the PNG saved as the inline backend saves it."""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from cibench_lab.grading import TurnOutput, grade
from cibench_lab.kernels.inkernel import figure_capture
from cibench_lab.tasks.model import ReferenceOutput, Step
from cibench_lab.tasks.plot import FIGURE_MIME


def output(fig: Figure, dpi: float = 72, structure: bool = True) -> dict:
    """The display_data the inline backend publishes for ``fig`` (PNG + our structure)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    data = {"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": "<Figure>"}
    if structure:
        bundle = figure_capture.capture(fig)
        assert bundle is not None and "omitted" not in bundle
        data[FIGURE_MIME] = bundle
    return {"output_type": "display_data", "data": data, "metadata": {}}


def step_of(ref: dict, elements: tuple[str, ...] = ("chart_type",)) -> Step:
    png = ref["data"]["image/png"]
    text = "Plot it."
    return Step(0, text, " ", "", (ref,), ReferenceOutput("vis", png), "vis", (), text + "\n", elements)


class Grades(dict):
    """Each profile's grade of one turn, computed when first read (the SSIM of the cibench
    profile costs more than the whole structural grade)."""

    def __init__(self, step: Step, turns: list[TurnOutput]):
        super().__init__()
        self.step, self.turns = step, turns

    def __missing__(self, profile: str) -> dict:
        self[profile] = grade(self.step, self.turns, profile).as_dict()
        return self[profile]


def grades(ref: dict, pred: dict, elements: tuple[str, ...] = ("chart_type",)) -> Grades:
    return Grades(step_of(ref, elements), [TurnOutput("plot()", [pred])])


def bars(values=(3.0, 5.0, 2.0), title: str | None = None, size=(6, 4)) -> Figure:
    fig = Figure(figsize=size)
    ax = fig.subplots()
    ax.bar(["a", "b", "c"], list(values))
    ax.set_xlabel("group")
    if title:
        ax.set_title(title)
    return fig


def line(shift: float = 0.0) -> Figure:
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    x = np.arange(10)
    ax.plot(x + shift, np.sin(x), label="sin")
    ax.legend()
    return fig


def image(seed: int, side: int = 40, rgb: bool = False) -> Figure:
    rng = np.random.default_rng(seed)
    shape = (side, side, 3) if rgb else (side, side)
    fig = Figure(figsize=(4, 4))
    fig.subplots().imshow(rng.integers(0, 256, size=shape).astype(np.uint8), cmap=None if rgb else "gray")
    return fig


TIPS = pd.DataFrame(
    {
        "day": ["Fri", "Sat", "Sun", "Thur"] * 6,
        "tip": [1.0, 2.5, 3.0, 2.0, 1.5, 3.5, 4.0, 2.2, 2.0, 3.0, 3.5, 2.6] * 2,
    }
)
