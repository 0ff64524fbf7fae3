"""The plot structure end to end: a real `cibench-lab` kernel publishes it beside each figure's
PNG (the start code's capture), the headless executor and the task build keep it, and the fair
grade uses it (the cibench grade and rendering do not see it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import nbformat
import pytest

from cibench_lab.authoring.build import execute as build_execute
from cibench_lab.grading import TurnOutput, grade_all
from cibench_lab.grading.cibench import render_turns
from cibench_lab.grading.figure import read_figure
from cibench_lab.kernels.executor import KernelExecutor
from cibench_lab.kernels.spec import ensure_kernelspec
from cibench_lab.tasks.format import parse_notebook
from cibench_lab.tasks.model import ReferenceOutput, Step
from cibench_lab.tasks.plot import FIGURE_MIME

MEANS = "import pandas as pd\ndf = pd.DataFrame({'g': list('abcabc'), 'v': [1, 2, 3, 3, 4, 5]})\n"
REFERENCE = (
    "import matplotlib.pyplot as plt\nplt.bar(['a', 'b', 'c'], [2, 3, 4])\nplt.title('Means')\nplt.show()"
)
PANDAS = "df.groupby('g')['v'].mean().plot(kind='bar', rot=0, figsize=(8, 3))\nplt.show()"
CHANGED = "plt.bar(['a', 'b', 'c'], [2, 3, 5])\nplt.show()"
LAST_EXPRESSION = "fig, ax = plt.subplots()\nax.bar(['a', 'b', 'c'], [2, 3, 4])\nplt.close(fig)\nfig"
PIL_IMAGE = (
    "from PIL import Image as P\nfrom IPython.display import Image, display\nimport io\n"
    "b = io.BytesIO(); P.new('RGB', (40, 30), 'white').save(b, 'png'); display(Image(b.getvalue()))"
)

#: A grey image with a red mask at 40 %: a masked array through a one-colour colormap, or an RGBA layer.
OVERLAY = (
    "import numpy as np\nfrom matplotlib.colors import ListedColormap\n"
    "img = np.add.outer(np.arange(300.0), np.arange(400.0)) % 256\nmask = img > {threshold}\n"
    "fig, ax = plt.subplots(figsize=(5, 4))\nax.imshow(img, cmap='gray')\n"
)
LISTED = OVERLAY.format(threshold=100) + (
    "ax.imshow(np.ma.masked_where(~mask, mask), cmap=ListedColormap(['red']), alpha=0.4)\nplt.show()"
)
RGBA = OVERLAY.format(threshold=100) + (
    "rgba = np.zeros(img.shape + (4,))\nrgba[mask] = (1, 0, 0, 0.4)\nax.imshow(rgba)\nplt.show()"
)
WRONG_MASK = RGBA.replace("mask = img > 100", "mask = img > 160")


async def _run_all(folder: Path) -> dict:
    executor = KernelExecutor(folder, timeout=60)
    await executor.start()
    try:
        await executor.run(MEANS)
        runs = {}
        for name, code in [("ref", REFERENCE), ("pandas", PANDAS), ("changed", CHANGED)]:
            runs[name] = await executor.run(code)
        runs["last"] = await executor.run(LAST_EXPRESSION)
        runs["pil"] = await executor.run(PIL_IMAGE)
        for name, code in [("listed", LISTED), ("rgba", RGBA), ("wrong_mask", WRONG_MASK)]:
            runs[name] = await executor.run(code)
        return runs
    finally:
        await executor.shutdown()


def test_a_kernel_publishes_the_structure_beside_the_png_and_the_fair_grade_uses_it(tmp_path):
    runs = asyncio.run(_run_all(tmp_path))
    for name in ("ref", "pandas", "changed", "last"):
        outs = runs[name].outputs
        shown = [o for o in outs if "image/png" in (o.get("data") or {})]
        assert len(shown) == 1 and FIGURE_MIME in shown[0]["data"], (name, outs)
        read_figure(shown[0]["data"][FIGURE_MIME])  # valid under the server's schema
    assert runs["last"].outputs[0]["output_type"] == "execute_result"
    ref = runs["ref"].outputs
    png = ref[0]["data"]["image/png"]
    step = Step(
        0, "Plot the means.", " ", REFERENCE, tuple(ref), ReferenceOutput("vis", png), "vis", (), "x\n"
    )

    def fair(name: str) -> dict:
        return grade_all(step, [TurnOutput("", runs[name].outputs)])["fair"]

    assert fair("pandas")["passed"] and fair("pandas")["detail"].startswith("data matches")
    assert fair("pandas")["detail"].endswith("not graded") and "title" in fair("pandas")["detail"]
    assert "1 of 3 bars differs" in fair("changed")["detail"] and not fair("changed")["passed"]
    assert fair("last")["passed"]
    pil = fair("pil")
    assert pil["detail"].startswith("plot SSIM") and "no plot structure" in pil["detail"]
    # images as shown, in the kernel's own matplotlib: another recipe of the same overlay passes
    listed = runs["listed"].outputs
    assert "shown" in listed[0]["data"][FIGURE_MIME]["axes"][0], listed
    png = listed[0]["data"]["image/png"]
    overlay = Step(0, "Show it.", " ", LISTED, tuple(listed), ReferenceOutput("vis", png), "vis", (), "x\n")
    rgba = grade_all(overlay, [TurnOutput("", runs["rgba"].outputs)])["fair"]
    assert rgba["passed"], rgba["detail"]
    assert not grade_all(overlay, [TurnOutput("", runs["wrong_mask"].outputs)])["fair"]["passed"]
    # what a model and the cibench profile read carries no trace of it
    rendered = render_turns([TurnOutput("", runs["pandas"].outputs)])[0]
    assert "cibench-lab" not in rendered.text and rendered.images == [
        runs["pandas"].outputs[0]["data"]["image/png"]
    ]


def test_a_task_build_records_the_structure_with_the_reference(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("Plot the means."), nbformat.v4.new_code_cell(REFERENCE)]
    (tmp_path / "data").mkdir()
    build_execute(nb, ensure_kernelspec(), 60, tmp_path)
    nbformat.validate(nb)
    text = nbformat.writes(nb)
    task = parse_notebook(text.encode(), tmp_path / "t.ipynb", "cibench_generation/matplotlib/t", tmp_path)
    (out,) = task.steps[0].outputs
    assert out["output_type"] == "display_data" and FIGURE_MIME in out["data"]
    assert isinstance(json.loads(text)["cells"][1]["outputs"][0]["data"][FIGURE_MIME], dict)
    g = grade_all(task.steps[0], [TurnOutput(REFERENCE, list(task.steps[0].outputs))])["fair"]
    assert g["passed"] and g["score"] == 1.0 and g["detail"].startswith("data matches")


pytestmark = pytest.mark.timeout(300)
