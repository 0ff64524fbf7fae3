"""Fair vis, issue 27's unfair cases: an image is graded by what it shows, bars are paired by their
category label whatever the axis direction, and each axis label is an element of its own.

Every figure is real (matplotlib on Agg, captured with the kernel's own code: ``tests/figures.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figures import grades, output
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from cibench_lab.kernels.inkernel import figure_capture
from cibench_lab.tasks.plot import FIGURE_MIME, declared_elements

skdata = pytest.importorskip("skimage.data")

pytestmark = pytest.mark.fast

CAMERA = skdata.camera().astype(np.float64)  # 512 x 512: above the 65,536 values kept in full
SMALL = CAMERA[::4, ::4].copy()  # 128 x 128: below it


def shown(img: np.ndarray, size=(5, 5), dpi=72, **kw) -> Figure:
    fig = Figure(figsize=size, dpi=dpi)
    fig.subplots().imshow(img, **kw)
    return fig


def overlay(img: np.ndarray, threshold: float, recipe: str, size=(5, 5)) -> Figure:
    """``img`` in grey, the pixels above ``threshold`` tinted red at 40 %, drawn by one of three recipes."""
    fig = Figure(figsize=size, dpi=72)
    ax = fig.subplots()
    mask = img > threshold
    if recipe == "blended":  # the tint mixed by hand into one RGB image
        rgb = np.repeat((img / 255.0)[..., None], 3, axis=-1)
        rgb[mask] = rgb[mask] * 0.6 + np.array([1.0, 0.0, 0.0]) * 0.4
        ax.imshow(rgb)
        return fig
    ax.imshow(img, cmap="gray")
    if recipe == "listed":  # a masked array through a one-colour colormap, alpha on the artist
        ax.imshow(np.ma.masked_where(~mask, mask), cmap=ListedColormap(["red"]), alpha=0.4)
    else:  # a hand-built RGBA layer, alpha in the pixels
        rgba = np.zeros(img.shape + (4,))
        rgba[mask] = (1.0, 0.0, 0.0, 0.4)
        ax.imshow(rgba)
    return fig


def fair(ref: Figure, pred: Figure, elements=("chart_type",)) -> dict:
    return grades(output(ref), output(pred), elements)["fair"]


# --------------------------------------------------------------------------- images


def test_a_red_mask_overlay_drawn_by_another_recipe_passes_a_wrong_mask_fails():
    ref = overlay(CAMERA, 100, "listed")
    for recipe in ("rgba", "blended"):
        g = fair(ref, overlay(CAMERA, 100, recipe))
        assert g["passed"], (recipe, g["detail"])
        assert "shown image" not in g["detail"]
    wrong = fair(ref, overlay(CAMERA, 160, "rgba"))
    assert not wrong["passed"]
    assert "the shown image differs" in wrong["detail"]


def test_the_overlay_at_another_figure_size_still_passes():
    g = fair(overlay(CAMERA, 100, "listed"), overlay(CAMERA, 100, "rgba", size=(8, 6)))
    assert g["passed"], g["detail"]


@pytest.mark.parametrize("img", [SMALL, CAMERA], ids=["128x128", "512x512"])
def test_one_colour_limits_habit_gets_one_verdict_at_every_image_size(img):
    narrow = 40.0 + img * (180.0 / 255.0)  # values 40..220
    ref = shown(narrow, cmap="gray")
    assert fair(ref, shown(narrow, cmap="gray", vmin=narrow.min(), vmax=narrow.max()))["passed"]
    g = fair(ref, shown(narrow, cmap="gray", vmin=0, vmax=255))  # visibly less contrast
    assert not g["passed"] and "the shown image differs" in g["detail"]


@pytest.mark.parametrize("img", [SMALL, CAMERA], ids=["128x128", "512x512"])
def test_a_colormap_that_looks_different_fails_one_that_looks_the_same_passes(img):
    ref = shown(img, cmap="gray")
    assert not fair(ref, shown(img, cmap="viridis"))["passed"]
    assert fair(ref, shown(img, cmap="binary_r"))["passed"]  # another name, the same greys


def test_the_shown_image_is_what_agg_draws_inside_the_axes():
    fig = overlay(CAMERA, 100, "listed", size=(4, 3))
    fig.axes[0].set_xlim(-40, 400)  # part of the axes shows its background
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    kept = figure_capture.shown(ax)
    assert kept is not None and max(kept["shape"][:2]) <= figure_capture.SHOWN_SIDE
    raster = np.asarray(kept["data"], dtype=np.float64).reshape(kept["shape"])
    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(np.float64) / 255.0
    box = ax.bbox
    top, left = pixels.shape[0] - round(box.y1), round(box.x0)
    drawn = pixels[top : top + round(box.y1) - round(box.y0), left : round(box.x1)]
    expected = np.rint(figure_capture._block_means(drawn, figure_capture.SHOWN_SIDE) * 255.0)
    assert np.abs(raster - expected)[1:-1, 1:-1].max() <= 1.0  # the frame's spines aside


def test_a_reference_recorded_before_shown_images_falls_back_to_the_arrays_and_says_so():
    ref = output(overlay(CAMERA, 100, "listed"))
    for axes in ref["data"][FIGURE_MIME]["axes"]:
        axes.pop("shown", None)
    same = grades(ref, output(overlay(CAMERA, 100, "listed")))["fair"]
    assert same["passed"] and "images compared by their arrays" in same["detail"]
    assert "recorded before" in same["detail"]
    other = grades(ref, output(overlay(CAMERA, 100, "rgba")))["fair"]
    assert not other["passed"]  # today's rule: the arrays differ


# --------------------------------------------------------------------------- bars

NAMES = [f"item {c}" for c in "abcdefghij"]
VALUES = [91.0, 77.0, 70.0, 52.0, 44.0, 31.0, 30.0, 18.0, 9.0, 4.0]  # largest first


def barh(names, values, invert=False) -> Figure:
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.barh(names, values)
    if invert:
        ax.invert_yaxis()
    return fig


def test_largest_on_top_by_inverting_the_axis_passes_like_reversing_the_data():
    ref = barh(NAMES[::-1], VALUES[::-1])  # reversed data: the largest drawn last, on top
    g = fair(ref, barh(NAMES, VALUES, invert=True))
    assert g["passed"], g["detail"]
    series = pd.Series(VALUES, index=NAMES)
    by_pandas, inverted = Figure(figsize=(6, 4)), Figure(figsize=(6, 4))
    series.sort_values().plot.barh(ax=by_pandas.subplots())
    ax = inverted.subplots()
    series.sort_values(ascending=False).plot.barh(ax=ax)
    ax.invert_yaxis()
    assert fair(by_pandas, inverted)["passed"]
    assert fair(ref, inverted)["passed"]


def test_a_wrong_value_under_the_right_label_still_fails():
    swapped = list(VALUES)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    g = fair(barh(NAMES[::-1], VALUES[::-1]), barh(NAMES, swapped, invert=True))
    assert not g["passed"]
    assert "2 of 10 bars differ" in g["detail"]
    renamed = fair(
        barh(NAMES[::-1], VALUES[::-1]), barh([n.replace("item", "part") for n in NAMES], VALUES, invert=True)
    )
    assert not renamed["passed"]  # other labels: no bar is paired
    assert not fair(barh(NAMES[::-1], VALUES[::-1]), barh(NAMES, VALUES))["passed"]  # smallest on top


def test_grouped_bars_pair_by_label_too():
    frame = pd.DataFrame({"lunch": [3.0, 5.0, 2.0, 4.0], "dinner": [6.0, 1.0, 7.0, 2.0]}, index=list("wxyz"))
    ref, pred = Figure(figsize=(6, 4)), Figure(figsize=(6, 4))
    frame.iloc[::-1].plot.barh(ax=ref.subplots())
    ax = pred.subplots()
    frame.plot.barh(ax=ax)
    ax.invert_yaxis()
    assert fair(ref, pred)["passed"]


def test_numeric_bar_positions_are_not_relabelled():
    a, b = Figure(), Figure()
    a.subplots().bar([0, 1, 2], [3.0, 5.0, 2.0])
    ax = b.subplots()
    ax.bar([0, 1, 2], [2.0, 5.0, 3.0])
    ax.invert_xaxis()  # the same numbers at other x: another chart
    assert not fair(a, b)["passed"]


# --------------------------------------------------------------------------- axis labels


def labelled(xlabel: str, ylabel: str) -> Figure:
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.bar(["Thur", "Fri", "Sat"], [2.8, 2.7, 3.0])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig


def test_a_step_declaring_only_the_y_label_grades_the_y_label_only():
    ref = labelled("day", "mean tip")
    assert fair(ref, labelled("Day of week", "Mean tip"), ("y_label",))["passed"]
    g = fair(ref, labelled("day", "tip"), ("y_label",))
    assert not g["passed"] and "the declared y label differs" in g["detail"]
    assert "mean tip" not in g["detail"]
    missing = fair(ref, labelled("day", ""), ("y_label",))
    assert "missing the declared y label" in missing["detail"]
    both = fair(ref, labelled("Day of week", "mean tip"), ("x_label", "y_label"))
    assert not both["passed"] and both["score"] == pytest.approx(0.5)
    assert "declared y label matches" in both["detail"] and "the declared x label differs" in both["detail"]


def test_an_old_axis_labels_declaration_reads_as_both_labels():
    meta = {"cibench_lab": {"schema_version": 1, "plot_elements": {"2": ["title", "axis_labels"]}}}
    assert declared_elements(meta, 2) == ("title", "x_label", "y_label")


def test_the_fair_rules_version_is_raised_for_cibench_tasks_only():
    from cibench_lab.grading.profile import VERSIONS
    from cibench_lab.grading.qwen.rules import QWEN_VERSIONS

    assert VERSIONS == {"cibench": 1, "fair": 3}  # 3: images as shown, bars by label, x and y labels
    assert QWEN_VERSIONS == {"cibench": 2, "fair": 2}  # Qwen's visualization items are graded by SSIM


def test_colours_and_ticks_declared_follow_what_is_shown():
    ref = overlay(CAMERA, 100, "listed")
    assert fair(ref, overlay(CAMERA, 100, "rgba"), ("colors",))["passed"]  # the tint is in the shown image
    assert not fair(shown(CAMERA, cmap="gray"), shown(CAMERA, cmap="viridis"), ("colors",))["passed"]
    bars_ref, inverted = barh(NAMES[::-1], VALUES[::-1]), barh(NAMES, VALUES, invert=True)
    assert fair(bars_ref, inverted, ("ticks",))["passed"]  # the same labels, top to bottom
    assert not fair(bars_ref, barh(NAMES, VALUES), ("ticks",))["passed"]  # smallest on top


def _over_categories(kind: str, names, values, invert=False) -> Figure:
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    (ax.plot if kind == "line" else ax.scatter)(names, values)
    if invert:
        ax.invert_xaxis()
    return fig


def test_points_and_lines_over_categories_pair_by_label_too():
    """Largest on the left drawn with ``invert_xaxis()`` instead of reversing the data: the same
    picture for a line and for points; a wrong value under its label still fails."""
    for kind in ("line", "scatter"):
        ref = _over_categories(kind, NAMES[::-1], VALUES[::-1])
        g = fair(ref, _over_categories(kind, NAMES, VALUES, invert=True))
        assert g["passed"], (kind, g["detail"])
        swapped = list(VALUES)
        swapped[0], swapped[1] = swapped[1], swapped[0]
        assert not fair(ref, _over_categories(kind, NAMES, swapped, invert=True))["passed"], kind
        assert not fair(ref, _over_categories(kind, NAMES, VALUES))["passed"], kind  # smallest on the left
