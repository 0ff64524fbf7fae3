"""The plot badge's words: repeated differences counted, agreement, and no reference counts.

Real figures drawn in-process (``tests/figures.py``), graded by the fair profile.
"""

from __future__ import annotations

import numpy as np
import pytest
from figures import bars, grades, output
from matplotlib.figure import Figure

from cibench_lab.grading.plot_words import counted

pytestmark = pytest.mark.fast


def _groups(n_groups: int, n_bars: int, seed: int = 0) -> Figure:
    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for g in range(n_groups):
        ax.bar(np.arange(n_bars) + 0.2 * g, rng.uniform(1, 9, n_bars), width=0.2)
    return fig


def _lines(n: int) -> Figure:
    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    for k in range(n):
        ax.plot(np.arange(5), np.arange(5) * (k + 7.5))
    return fig


def test_repeated_differences_are_counted_once_each():
    detail = grades(output(_groups(2, 3)), output(_lines(2)))["fair"]["detail"]
    assert "data differs: 2 bar groups missing, 2 extra lines;" in detail, detail
    assert "a bar group missing" not in detail and "an extra line" not in detail


def test_a_single_difference_keeps_its_article_and_unknown_ones_say_how_often():
    assert counted(["an extra line"]) == ["an extra line"]
    assert counted(["a plot area missing"] * 3) == ["3 plot areas missing"]
    assert counted(["an image differs", "an image differs"]) == ["2 images differ"]
    assert counted(["a different number of bars"] * 2) == ["a different number of bars in 2 series"]


def test_declared_plural_elements_take_differ():
    ref = output(bars())
    pred = bars()
    pred.axes[0].set_xlabel("something else")
    pred.axes[0].tick_params(axis="x", labelrotation=30)
    detail = grades(ref, output(pred), ("x_label", "ticks"))["fair"]["detail"]
    assert "the declared x label differs" in detail and "the declared ticks differ" in detail, detail


def test_another_number_of_bars_never_tells_the_reference_count_or_values():
    ref_fig = _groups(1, 15, seed=1)
    heights = [f"{b.get_height():.1f}" for b in ref_fig.axes[0].patches]
    g = grades(output(ref_fig), output(_groups(1, 10, seed=2)))["fair"]
    assert not g["passed"]
    assert "a different number of bars" in g["detail"], g["detail"]
    assert "15" not in g["detail"] and not any(h in g["detail"] for h in heights)


def test_the_same_number_of_bars_still_counts_the_ones_that_differ():
    g = grades(output(bars()), output(bars(values=(3.0, 5.0, 4.0))))["fair"]
    assert "1 of 3 bars differs" in g["detail"], g["detail"]
