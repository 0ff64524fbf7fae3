"""The structural plot grade (fair vis): golden cases drawn with matplotlib, seaborn and pandas.

Every figure here is real: drawn in-process on an Agg canvas and captured with the kernel's
own capture code (``engine/figure_capture.py``, the text the start code sends), its PNG
saved as the inline backend would.  The last test runs the capture through a real
``cibench-lab`` kernel.
"""

from __future__ import annotations

import base64
import copy
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from cibench_lab.engine import figure_capture
from cibench_lab.grading import TurnOutput, grade
from cibench_lab.grading.figure import FigureError, read_figure
from cibench_lab.tasks.model import ReferenceOutput, Step
from cibench_lab.tasks.plot import FIGURE_MIME

sns = pytest.importorskip("seaborn")


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


pytestmark = pytest.mark.fast


def test_identical_passes_with_score_1():
    g = grades(output(bars()), output(bars()))["fair"]
    assert g["passed"] and g["score"] == 1.0
    assert g["detail"].startswith("data matches")


def test_an_extra_undeclared_title_passes_and_says_not_graded():
    g = grades(output(bars()), output(bars(title="My bars")))["fair"]
    assert g["passed"], g["detail"]
    assert "title not graded" in g["detail"]


def test_a_declared_title_missing_is_a_miss_naming_it():
    g = grades(output(bars(title="Secret Reference Title")), output(bars()), ("title", "chart_type"))["fair"]
    assert not g["passed"] and g["score"] < 1.0
    assert "missing the declared title" in g["detail"]
    assert "secret" not in g["detail"].lower()


def test_a_declared_title_with_other_text_differs_without_quoting_it():
    ref = output(bars(title="Mean tip by day"))
    g = grades(ref, output(bars(title="Tips")), ("title",))["fair"]
    assert not g["passed"] and "the declared title differs" in g["detail"]
    assert "Mean tip" not in g["detail"]
    assert grades(ref, output(bars(title="  mean TIP by day ")), ("title",))["fair"]["passed"]


def test_another_figure_size_or_dpi_passes_under_fair_not_under_cibench_ssim():
    ref = output(bars())
    for pred in (output(bars(size=(9, 3))), output(bars(), dpi=100)):
        both = grades(ref, pred)
        assert both["fair"]["passed"], both["fair"]["detail"]
        assert both["cibench"]["score"] < 0.99
    assert not grades(ref, output(bars(size=(9, 3))), ("figsize",))["fair"]["passed"]


def test_one_bar_changed_is_a_miss_saying_1_of_3_bars():
    g = grades(output(bars((3.0, 5.0, 2.0))), output(bars((3.0, 5.5, 2.0))))["fair"]
    assert not g["passed"]
    assert "1 of 3 bars differs" in g["detail"]
    assert "5.5" not in g["detail"] and "5.0" not in g["detail"]
    assert g["score"] == pytest.approx(2 / 3)


def test_bars_are_compared_as_a_set():
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.bar([2, 0, 1], [2.0, 3.0, 5.0])
    ref = Figure(figsize=(6, 4))
    ref.subplots().bar([0, 1, 2], [3.0, 5.0, 2.0])
    assert grades(output(ref), output(fig))["fair"]["passed"]


def test_a_shifted_series_is_a_miss():
    g = grades(output(line()), output(line(shift=1.0)))["fair"]
    assert not g["passed"] and "a line differs" in g["detail"] and "missing" not in g["detail"]
    assert grades(output(line()), output(line(shift=1e-6)))["fair"]["passed"]  # within tolerance


def test_another_chart_type_of_the_same_data_is_a_miss():
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.plot([0, 1, 2], [3.0, 5.0, 2.0])
    ax.set_xticks([0, 1, 2], ["a", "b", "c"])
    g = grades(output(bars()), output(fig))["fair"]
    assert not g["passed"] and "the declared chart type differs" in g["detail"]
    assert "data matches" in g["detail"]  # the same values, drawn another way
    # a task that does not declare the chart type grades the data only
    assert grades(output(bars()), output(fig), ())["fair"]["passed"]


def test_scatter_points_in_another_order_pass():
    rng = np.random.default_rng(0)
    xy = rng.normal(size=(50, 2))
    a, b = Figure(), Figure()
    a.subplots().scatter(xy[:, 0], xy[:, 1])
    b.subplots().scatter(xy[::-1, 0], xy[::-1, 1])
    assert grades(output(a), output(b))["fair"]["passed"]
    xy[3] += 1.0
    c = Figure()
    c.subplots().scatter(xy[:, 0], xy[:, 1])
    assert "1 of 50 points differs" in grades(output(a), output(c))["fair"]["detail"]


TIPS = pd.DataFrame(
    {
        "day": ["Fri", "Sat", "Sun", "Thur"] * 6,
        "tip": [1.0, 2.5, 3.0, 2.0, 1.5, 3.5, 4.0, 2.2, 2.0, 3.0, 3.5, 2.6] * 2,
    }
)


def test_a_seaborn_bar_chart_and_its_pandas_equivalent_pass_on_data():
    means = TIPS.groupby("day")["tip"].mean()
    fig_sns = Figure(figsize=(6, 4))
    sns.barplot(data=TIPS, x="day", y="tip", order=list(means.index), errorbar=None, ax=fig_sns.subplots())
    fig_pd = Figure(figsize=(6, 4))
    means.plot(kind="bar", ax=fig_pd.subplots(), rot=0)
    g = grades(output(fig_sns), output(fig_pd))["fair"]
    assert g["passed"], g["detail"]
    other = TIPS.assign(tip=TIPS.tip * 2).groupby("day")["tip"].mean()
    fig_wrong = Figure(figsize=(6, 4))
    other.plot(kind="bar", ax=fig_wrong.subplots())
    assert not grades(output(fig_sns), output(fig_wrong))["fair"]["passed"]


def test_pandas_hist_and_matplotlib_hist_of_the_same_bins_pass():
    values = np.random.default_rng(1).normal(size=200)
    a, b = Figure(), Figure()
    a.subplots().hist(values, bins=10)
    pd.Series(values).plot.hist(bins=10, ax=b.subplots())
    assert grades(output(a), output(b))["fair"]["passed"]
    c = Figure()
    c.subplots().hist(values, bins=12)
    assert not grades(output(a), output(c))["fair"]["passed"]


def image(seed: int, side: int = 40, rgb: bool = False) -> Figure:
    rng = np.random.default_rng(seed)
    shape = (side, side, 3) if rgb else (side, side)
    fig = Figure(figsize=(4, 4))
    fig.subplots().imshow(rng.integers(0, 256, size=shape).astype(np.uint8), cmap=None if rgb else "gray")
    return fig


def test_imshow_of_the_same_image_passes_of_another_misses():
    assert grades(output(image(0)), output(image(0)))["fair"]["passed"]
    g = grades(output(image(0)), output(image(1)))["fair"]
    assert not g["passed"] and "an image differs" in g["detail"]


def test_large_images_are_digested_and_still_compared():
    ref = output(image(0, side=300, rgb=True))
    kept = ref["data"][FIGURE_MIME]["axes"][0]["artists"][0]["array"]
    assert "digest" in kept and max(kept["sample"]["shape"][:2]) <= 64
    assert grades(ref, output(image(0, side=300, rgb=True)))["fair"]["passed"]
    assert not grades(ref, output(image(2, side=300, rgb=True)))["fair"]["passed"]


def test_an_image_from_pil_has_no_structure_and_falls_back_to_ssim_saying_so():
    ref = output(bars())
    pred = output(bars(), structure=False)  # a PNG written by PIL/OpenCV carries no structure
    g = grades(ref, pred)["fair"]
    assert g["detail"].startswith("plot SSIM") and "no plot structure" in g["detail"]
    assert g["passed"]


def test_a_reference_without_structure_falls_back_to_ssim_saying_so():
    g = grades(output(bars(), structure=False), output(bars()))["fair"]
    assert "the reference has no plot structure" in g["detail"]


def _oversized() -> dict:
    pred = output(line())
    bundle = pred["data"][FIGURE_MIME]
    big = {"shape": [60000, 2], "data": [0.123456789] * 120000}
    bundle["axes"][0]["artists"] = [{"type": "line", "xy": big}] * 2
    return pred


def _nested(depth: int) -> list:
    value: list = [1]
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda b: b.update(version=7), "schema"),
        (lambda b: b.update(axes="nope"), "schema"),
        (lambda b: b["axes"][0]["artists"][0]["xy"].update(data=["x"] * 20), "not a number"),
        (lambda b: b["axes"][0]["artists"][0]["xy"].update(shape=[3, 2]), "fill its shape"),
        (lambda b: b.update(extra=_nested(14)), "nested deeper"),
        (lambda b: b.clear() or b.update(version=1, omitted="too large", bytes=2_000_000), "omitted"),
    ],
)
def test_a_malformed_bundle_falls_back_to_ssim_without_crashing(spoil, reason):
    pred = output(line())
    spoil(pred["data"][FIGURE_MIME])
    with pytest.raises(FigureError, match=reason):
        read_figure(pred["data"][FIGURE_MIME])
    g = grades(output(line()), pred)["fair"]
    assert g["detail"].startswith("plot SSIM") and "not used" in g["detail"]


def test_an_oversized_bundle_falls_back_to_ssim_saying_so():
    g = grades(output(line()), _oversized())["fair"]
    assert "too large" in g["detail"] and g["detail"].startswith("plot SSIM")


def test_a_bundle_of_the_wrong_json_type_falls_back():
    for junk in (None, 3, "text", [1, 2], {"version": 1}):
        pred = output(line())
        pred["data"][FIGURE_MIME] = copy.deepcopy(junk)
        g = grades(output(line()), pred)["fair"]
        assert g["detail"].startswith("plot SSIM")


def test_declared_elements_each_graded():
    def fig(**kw) -> Figure:
        f = Figure(figsize=kw.get("size", (6, 4)))
        ax = f.subplots()
        ax.plot([0, 1, 2], [1, 4, 9], color=kw.get("color", "C0"), label=kw.get("label", "y"))
        ax.set_ylabel(kw.get("ylabel", "value"))
        ax.legend()
        if kw.get("rot"):
            ax.tick_params(axis="x", labelrotation=kw["rot"])
        return f

    ref = output(fig())
    cases = {
        "axis_labels": fig(ylabel="other"),
        "legend": fig(label="z"),
        "colors": fig(color="red"),
        "ticks": fig(rot=45),
        "figsize": fig(size=(8, 4)),
    }
    for element, pred in cases.items():
        assert not grades(ref, output(pred), (element,))["fair"]["passed"], element
        assert grades(ref, output(pred), ())["fair"]["passed"], element  # undeclared: never graded


def test_a_colorbar_declared_and_missing_is_named():
    data = np.arange(16.0).reshape(4, 4)
    ref, pred = Figure(), Figure()
    im = ref.subplots().imshow(data)
    ref.colorbar(im)
    pred.subplots().imshow(data)
    g = grades(output(ref), output(pred), ("colorbar",))["fair"]
    assert not g["passed"] and "missing the declared colour bar" in g["detail"]


def test_a_seaborn_heatmap_compares_its_matrix():
    data = pd.DataFrame(np.arange(12.0).reshape(3, 4))
    a, b, c = Figure(), Figure(), Figure()
    sns.heatmap(data, ax=a.subplots())
    sns.heatmap(data, ax=b.subplots(), cmap="viridis")
    sns.heatmap(data.iloc[::-1], ax=c.subplots())
    assert grades(output(a), output(b))["fair"]["passed"]
    assert not grades(output(a), output(b), ("colors",))["fair"]["passed"]
    assert not grades(output(a), output(c))["fair"]["passed"]


def test_a_seaborn_ecdf_whose_lines_start_at_minus_infinity_matches_itself():
    a, b = Figure(), Figure()
    sns.ecdfplot(data=TIPS, x="tip", hue="day", ax=a.subplots())
    sns.ecdfplot(data=TIPS.assign(tip=TIPS.tip + 0.5), x="tip", hue="day", ax=b.subplots())
    assert grades(output(a), output(a))["fair"]["passed"]
    assert not grades(output(a), output(b))["fair"]["passed"]


def test_pie_wedges_compare():
    a, b = Figure(), Figure()
    a.subplots().pie([1, 2, 3])
    b.subplots().pie([1, 2, 4])
    assert grades(output(a), output(a))["fair"]["passed"]
    assert not grades(output(a), output(b))["fair"]["passed"]


def test_the_cibench_profile_is_unchanged_by_the_structure():
    ref, pred = output(bars()), output(bars((3.0, 5.5, 2.0)))
    bare = {**pred, "data": {k: v for k, v in pred["data"].items() if k != FIGURE_MIME}}
    assert grades(ref, pred)["cibench"] == grades(ref, bare)["cibench"]


def test_capture_is_fast_and_never_raises():
    import time

    fig = bars()
    started = time.perf_counter()
    for _ in range(20):
        figure_capture.capture(fig)
    assert (time.perf_counter() - started) / 20 < 0.05

    class Broken(Figure):
        def get_axes(self):
            raise RuntimeError("boom")

    assert figure_capture.is_figure(Broken())
    assert figure_capture.capture(Broken()) is None
    assert figure_capture.capture("not a figure") is None


def test_a_large_bundle_is_kept_by_the_turn_bounds_and_json_counts_by_its_size():
    from cibench_lab.engine.execution import MAX_TEXT, Execution

    def msg(data: dict) -> dict:
        return {"header": {"msg_type": "display_data"}, "content": {"data": data, "metadata": {}}}

    bundle = _oversized()["data"][FIGURE_MIME]  # about 2 MB of JSON: the grade falls back, the turn keeps it
    ex = Execution("m")
    for _ in range(3):
        ex.add(msg({"image/png": "iVBORw0KGgo=", FIGURE_MIME: bundle}))
    assert len(ex.outputs) == 3 and not ex.truncated
    assert ex.outputs[0]["data"][FIGURE_MIME] == bundle
    ex.add(msg({"application/json": {"x": "y" * MAX_TEXT}}))  # other JSON counts as text, by size
    assert ex.truncated and len(ex.outputs) == 3


@pytest.mark.parametrize("freq", ["MS", "ME", "QS"])
def test_a_pandas_time_series_plot_and_ax_plot_of_it_pass(freq):
    series = pd.Series(np.arange(24.0) ** 1.5, index=pd.date_range("2000-01-01", periods=24, freq=freq))
    by_pandas, by_matplotlib, shifted = Figure(), Figure(), Figure()
    series.plot(ax=by_pandas.subplots())
    by_matplotlib.subplots().plot(series.index, series.to_numpy())
    series.shift(1).plot(ax=shifted.subplots())
    ref_units = figure_capture.capture(by_pandas)["axes"][0]["x"]["units"]
    assert ref_units.startswith("period:")
    for a, b in ((by_pandas, by_matplotlib), (by_matplotlib, by_pandas)):
        g = grades(output(a), output(b))["fair"]
        assert g["passed"], (freq, g["detail"])
    assert not grades(output(by_pandas), output(shifted))["fair"]["passed"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_BASE = None


def _base_bundle() -> dict:
    global _BASE
    if _BASE is None:
        fig = bars(title="t")
        fig.axes[0].plot([0, 1, 2], [1.0, 2.0, 3.0])
        fig.axes[0].scatter([0, 1], [2.0, 1.0])
        _BASE = output(fig)
    return _BASE


def _nodes(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutation_of_a_real_bundle_grades_without_raising(data):
    ref = _base_bundle()
    pred = copy.deepcopy(ref)
    bundle = pred["data"][FIGURE_MIME]
    paths = list(_nodes(bundle))[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = bundle
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this node
    g = grade(step_of(ref), [TurnOutput("plot()", [pred])], "fair").as_dict()
    assert 0.0 <= g["score"] <= 1.0 and g["detail"]
