"""A settled step's reference as the panel shows it: a vis step's plot as an image."""

from __future__ import annotations

import pytest
from figures import bars, output

from cibench_lab.tasks.model import ReferenceOutput, Step
from cibench_lab.views.attempt import reference_view

pytestmark = pytest.mark.fast


def _vis_step(outputs: tuple) -> Step:
    png = output(bars(), structure=False)["data"]["image/png"]
    ref = ReferenceOutput("vis", png)
    return Step(0, "Plot it.", "Bars.", "plot()", outputs, ref, "vis", (), "Plot it.\n")


def test_a_vis_reference_is_its_image_not_a_line_naming_its_size():
    fig = output(bars(), structure=False)
    for step in (_vis_step((fig,)), _vis_step(())):  # the cell's output, else the graded PNG
        ref = reference_view(step)
        assert ref["image"] and ref["image"].startswith("iVBOR")
        assert ref["output"] == ""
        assert "bytes" not in ref["output"]


def test_other_references_keep_their_output_text():
    step = Step(0, "Print it.", " ", "print(1)", (), ReferenceOutput("general", "1"), "general", (), "x\n")
    assert reference_view(step) == {"code": "print(1)", "thought": " ", "output": "1", "image": None}
