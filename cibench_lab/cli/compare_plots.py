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
    import matplotlib.pyplot as plt
    import numpy as np

    rows = report["libraries"]
    labels = [row["lib"] + (" *" if row["mismatch"] else "") for row in rows]
    groups = ["humans", *(r["run"] for r in report["runs"])]
    width = 0.8 / len(groups)
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(rows) + 2), 4.5))
    rates = [_nan(row["humans"]["rate"]) for row in rows]
    lo = [p - _nan(row["humans"]["ci"][0], p) for p, row in zip(rates, rows, strict=True)]
    hi = [_nan(row["humans"]["ci"][1], p) - p for p, row in zip(rates, rows, strict=True)]
    label = f"humans ({people(report['people'])}, 95% CI)"
    bars = [ax.bar(x, rates, width, yerr=[lo, hi], capsize=3, label=label)]
    for i, run in enumerate(groups[1:], start=1):
        bars.append(ax.bar(x + i * width, [_nan(row["runs"][run]["rate"]) for row in rows], width, label=run))
    for bar in bars:
        ax.bar_label(bar, labels=[_figure(b.get_height()) for b in bar], fontsize="x-small", padding=2)
    ax.set_xticks(x + width * (len(groups) - 1) / 2, labels, rotation=20, ha="right")
    ax.set_ylim(0, 105)
    ax.set_ylabel("steps passed (%)")
    title = f"people vs models per library · profile {report['profile']}{_suffix(report)}"
    ax.set_title(title, fontsize="medium")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


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
