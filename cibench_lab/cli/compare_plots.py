"""The comparison's plots (matplotlib, Agg): per-library pass-rate bars, people's time vs difficulty
(its labels readable: :mod:`.plot_labels`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..grading.bounds import DIGITS, MISSING, people
from . import plot_labels

if TYPE_CHECKING:  # matplotlib and numpy are imported where they draw: the CLI starts without them
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

LIBRARIES = "libraries.png"
TIME = "time_vs_difficulty.png"


def write_plots(report: dict[str, Any], folder: str) -> list[str]:
    """Write both plots into ``folder`` (created); their paths."""
    import matplotlib

    matplotlib.use("Agg")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = [str(out / LIBRARIES), str(out / TIME)]
    _library_bars(report, paths[0])
    _time_vs_difficulty(report, paths[1])
    return paths


def _suffix(report: dict[str, Any]) -> str:
    if report["comparability"]["mismatches"]:
        return "\nNOT COMPARABLE: mismatches marked * (--allow-mismatch)"
    return ""


def _library_bars(report: dict[str, Any], path: str) -> None:
    import matplotlib.pyplot as plt

    fig = library_figure(report)
    fig.savefig(path)
    plt.close(fig)


def library_figure(report: dict[str, Any]) -> Figure:
    """Per library a bar per respondent group with its value; the legend under the plot."""
    import matplotlib.pyplot as plt
    import numpy as np

    rows = report["libraries"]
    groups = ["humans", *(r["run"] for r in report["runs"])]
    width = 0.8 / len(groups)
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(rows) * len(groups) ** 0.5 + 2), 5))
    for i, group in enumerate(groups):
        _group_bars(ax, report, group, x + i * width, width)
    many = len(rows) > 6
    labels = [row["lib"] + (" *" if row["mismatch"] else "") for row in rows]
    ax.set_xticks(
        x + width * (len(groups) - 1) / 2,
        labels,
        rotation=20 if many else 0,
        ha="right" if many else "center",
    )
    ax.set_ylim(0, 112)
    ax.set_yticks(range(0, 101, 20))
    ax.set_ylabel("steps passed (%)")
    title = f"people vs models per library · profile {report['profile']}{_suffix(report)}"
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.1 if not many else -0.18),
              ncol=min(len(groups), 3), frameon=False)  # fmt: skip
    fig.tight_layout()
    return fig


def _group_bars(ax: Axes, report: dict[str, Any], group: str, at: np.ndarray, width: float) -> None:
    """One respondent group's bars, each with its value above it (``not played``, or ``only quit`` for
    people who only quit, where it has none); the people's 95% CI as an error bar."""
    import numpy as np

    figures = [row["humans"] if group == "humans" else row["runs"][group] for row in report["libraries"]]
    rates = np.array([_nan(f["rate"]) for f in figures])
    err = None
    if group == "humans":
        lo = [r - _nan(f["ci"][0], r) for r, f in zip(rates, figures, strict=True)]
        err = [lo, [_nan(f["ci"][1], r) - r for r, f in zip(rates, figures, strict=True)]]
    name = f"humans ({people(report['people'])}, 95% CI)" if group == "humans" else group
    ax.bar(at, np.nan_to_num(rates), width, yerr=err, capsize=3, label=name)
    for x, rate, f in zip(at, rates, figures, strict=True):
        none = "only quit" if group == "humans" and f["quit"] else "not played"
        _bar_value(ax, x, rate, f["ci"][1] if group == "humans" else None, none)


def _bar_value(ax: Axes, at: float, rate: float, top: float | None, none: str) -> None:
    """A bar's value above it (above its CI's top when higher); ``none`` upright where it has none."""
    if rate != rate:
        ax.text(at, 2, none, rotation=90, ha="center", va="bottom", fontsize="x-small", color="0.35")
        return
    y = max(rate, top if top is not None else rate) + 1.5
    ax.text(at, y, _figure(rate), ha="center", va="bottom", fontsize="x-small")


def _time_vs_difficulty(report: dict[str, Any], path: str) -> None:
    import matplotlib.pyplot as plt

    fig = time_figure(report)
    fig.savefig(path)
    plt.close(fig)


def time_figure(report: dict[str, Any]) -> Figure:
    """The people's median working time (IQR as a bar) against each step's difficulty, both axes with
    tick values; steps tied at one point share one label and the note under the plot lists them, and
    any point whose label found no room (:mod:`.plot_labels`). Drawn again with room for a longer
    note when a label found none."""
    import matplotlib.pyplot as plt

    groups = plot_labels.points(
        [r for r in report["steps"] if r["humans"]["time"]["median"] is not None and r["rank"]]
    )
    ties = [g for g in groups if len(g.labels) > 1]
    unlabelled: list[plot_labels.Point] = []
    for _ in range(3):
        fig, left = _draw_time(report, groups, plot_labels.note(ties, unlabelled))
        if all(g in unlabelled for g in left):
            return fig
        unlabelled = [g for g in groups if g in left or g in unlabelled]
        plt.close(fig)
    return _draw_time(report, groups, plot_labels.note(ties, unlabelled))[0]


#: the note's lines: characters a line (x-small text across the figure) and inches a line
NOTE_CHARS = 120
NOTE_LINE = 0.125


def _draw_time(
    report: dict[str, Any], groups: list[plot_labels.Point], lines: list[str]
) -> tuple[Figure, list[plot_labels.Point]]:
    """The figure with ``lines`` as its note (wrapped), and the points left without a label."""
    import textwrap

    import matplotlib.pyplot as plt

    wrapped = [part for line in lines for part in textwrap.wrap(line, NOTE_CHARS, subsequent_indent="  ")]
    room = NOTE_LINE * len(wrapped) + (0.1 if wrapped else 0)
    fig, ax = plt.subplots(figsize=(7, 4.5 + room))
    xs = [g.x for g in groups]
    ys = [g.y for g in groups]
    err = [[g.y - g.q1 for g in groups], [g.q3 - g.y for g in groups]]
    ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=3)
    ax.set_xlabel("step difficulty (Rasch, people and models; larger is harder)")
    ax.set_ylabel("people's working time (s, median and IQR)")
    ax.set_title(f"time vs difficulty · humans:{report['study']}{_suffix(report)}", fontsize="medium")
    ax.margins(x=0.08, y=0.1)
    fig.tight_layout(rect=(0, room / (4.5 + room), 1, 1))
    left = plot_labels.place(ax, groups)
    if wrapped:
        fig.text(0.01, 0.01, "\n".join(wrapped), fontsize=plot_labels.FONT, va="bottom", ha="left")
    return fig, left


def _figure(value: float) -> str:
    """A bar's label: its value at the report's precision, ``—`` for none (not played)."""
    return MISSING if value != value else f"{value:.{DIGITS}f}"


def _nan(value: float | None, default: float = float("nan")) -> float:
    return default if value is None else value
