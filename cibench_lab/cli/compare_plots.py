"""The comparison's plots (matplotlib, Agg): per-library pass-rate bars, people's time vs difficulty."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..grading.bounds import DIGITS, MISSING, people

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
    fig.savefig(path)
    plt.close(fig)


def _group_bars(ax, report: dict[str, Any], group: str, at, width: float) -> None:
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


def _bar_value(ax, at: float, rate: float, top: float | None, none: str) -> None:
    """A bar's value above it (above its CI's top when higher); ``none`` upright where it has none."""
    if rate != rate:
        ax.text(at, 2, none, rotation=90, ha="center", va="bottom", fontsize="x-small", color="0.35")
        return
    y = max(rate, top if top is not None else rate) + 1.5
    ax.text(at, y, _figure(rate), ha="center", va="bottom", fontsize="x-small")


def _time_vs_difficulty(report: dict[str, Any], path: str) -> None:
    import matplotlib.pyplot as plt

    steps = [r for r in report["steps"] if r["humans"]["time"]["median"] is not None and r["rank"]]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [row["difficulty"] for row in steps]
    ys = [row["humans"]["time"]["median"] for row in steps]
    err = [[y - row["humans"]["time"]["q1"] for y, row in zip(ys, steps, strict=True)],
           [row["humans"]["time"]["q3"] - y for y, row in zip(ys, steps, strict=True)]]  # fmt: skip
    ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=3)
    for x, y, row in zip(xs, ys, steps, strict=True):
        name = row["task"].rsplit("/", 1)[-1]
        label = f"{name} #{row['step'] + 1}" + (" *" if row["mismatch"] else "")
        ax.annotate(label, (x, y), xytext=(5, 3), textcoords="offset points", fontsize="x-small")
    ax.set_xlabel("step difficulty (Rasch, people and models; larger is harder)")
    ax.set_ylabel("people's working time (s, median and IQR)")
    ax.set_title(f"time vs difficulty · humans:{report['study']}{_suffix(report)}", fontsize="medium")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _figure(value: float) -> str:
    """A bar's label: its value at the report's precision, ``—`` for none (not played)."""
    return MISSING if value != value else f"{value:.{DIGITS}f}"


def _nan(value: float | None, default: float = float("nan")) -> float:
    return default if value is None else value
