"""``report --plot`` for runs of Qwen's benchmark: the table's six cells as bars, one bar per run.

Executable rate (Math, Visualization, General) and accuracy (Math, Visualization-Hard,
Visualization-Easy), each bar with its 95% CI as an error bar; a cell without items, or not
graded (no judge), has no bar and says so under its label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .qwen_report import HEADER

if TYPE_CHECKING:  # matplotlib is imported where it draws: the CLI starts without it
    from matplotlib.figure import Figure


def plot_qwen(report: dict, path: str) -> None:
    """Write the bar chart of ``report`` (:func:`~.qwen_report.qwen_report`) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = qwen_figure(report)
    fig.savefig(path)
    plt.close(fig)


def qwen_figure(report: dict) -> Figure:
    """The chart as a matplotlib figure (one ``Axes``: a bar container per run)."""
    import matplotlib.pyplot as plt
    import numpy as np

    runs = [r["json"] for r in report["runs"]]
    keys = [(s, c) for s, cells in runs[0]["cells"].items() for c in cells]
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.8 / max(1, len(runs))
    x = np.arange(len(keys))
    for i, body in enumerate(runs):
        cells = [body["cells"][s][c] for s, c in keys]
        values = [np.nan if c["value"] is None else c["value"] for c in cells]
        lo = [0 if c["ci_lo"] is None else v - c["ci_lo"] for c, v in zip(cells, values, strict=True)]
        hi = [0 if c["ci_hi"] is None else c["ci_hi"] - v for c, v in zip(cells, values, strict=True)]
        label = body["run"] if body["original_protocol"] else f"{body['run']} ({body['protocol']})"
        ax.bar(x + i * width, values, width, yerr=[lo, hi], capsize=3, label=label)
    missing = [all(b["cells"][s][c]["value"] is None for b in runs) for s, c in keys]
    labels = [h + ("\n(no value)" if gone else "") for h, gone in zip(HEADER[1:], missing, strict=True)]
    ax.set_xticks(x + 0.4 - width / 2, labels, rotation=20, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("x100 (95% CI)")
    ax.set_title(f"Qwen's Code Interpreter Benchmark · profile {report['profile']}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
