"""The structural plot grade (fair vis): golden cases drawn with matplotlib, seaborn and pandas.

Every figure here is real: drawn in-process on an Agg canvas and captured with the kernel's
own capture code (``kernels/inkernel/figure_capture.py``, the text the start code sends), its PNG
saved as the inline backend would (``tests/figures.py``).  Untrusted bundles:
``test_grading_plot_bounds.py``; a real ``cibench-lab`` kernel: ``test_grading_plot_kernel.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figures import TIPS, bars, grades, image, line, output
from matplotlib.figure import Figure

from cibench_lab.kernels.inkernel import figure_capture
from cibench_lab.tasks.plot import FIGURE_MIME

sns = pytest.importorskip("seaborn")


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
    as_suptitle = bars()
    as_suptitle.suptitle("Mean tip by day")
    assert grades(ref, output(as_suptitle), ("title",))["fair"]["passed"]  # where it is drawn is styling


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


def test_the_same_curve_sampled_at_other_points_passes():
    def curve(n: int, stop: float = 10.0, lift: float = 0.0) -> Figure:
        fig = Figure()
        x = np.linspace(0.0, stop, n)
        fig.subplots().plot(x, np.sin(x) + lift)
        return fig

    ref = output(curve(200))
    assert grades(ref, output(curve(500)))["fair"]["passed"]
    assert not grades(ref, output(curve(500, lift=0.2)))["fair"]["passed"]
    assert not grades(ref, output(curve(500, stop=8.0)))["fair"]["passed"]  # a shorter line


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


def test_imshow_of_the_same_image_passes_of_another_misses():
    assert grades(output(image(0)), output(image(0)))["fair"]["passed"]
    g = grades(output(image(0)), output(image(1)))["fair"]
    assert not g["passed"] and "the shown image differs" in g["detail"]


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
        "y_label": fig(ylabel="other"),
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
