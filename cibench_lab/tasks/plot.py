"""What a `vis` step's figure may be graded on: one closed vocabulary of plot elements.

A task declares, per vis step, the elements its instruction states and the grader
checks (``metadata.cibench_lab.plot_elements``: ``{"<0-based step>": [element, ...]}``).
The data a figure shows is always graded; an element that is not declared never
changes the score.  A task with no declaration at all (an imported official task)
is graded on data and chart type (:data:`UNDECLARED`).  The grader, the lint and the
task schema share this list; a notebook may still declare an old name (:data:`LEGACY`).
"""

from __future__ import annotations

from typing import Any

#: The MIME type of the figure structure the kernel's start code displays beside
#: each matplotlib figure's ``image/png`` (invisible to people, read by the server).
FIGURE_MIME = "application/vnd.cibench-lab.figure+json"
#: The largest figure structure (bytes of JSON) the server reads; a larger one falls back to SSIM.
FIGURE_MAX_BYTES = 1_000_000

#: element -> what it means (the docs and the lint's messages use these words).
ELEMENTS: dict[str, str] = {
    "title": "the axes' titles (and the figure's suptitle)",
    "x_label": "the x axis label",
    "y_label": "the y axis label",
    "legend": "the legend's entries",
    "colors": "the series' colours or the colormap",
    "colorbar": "a colour bar",
    "ticks": "tick labels, their positions and rotation",
    "figsize": "the figure size in inches",
    "chart_type": "the kind of chart (line, bar, scatter, histogram, image, ...)",
}

#: What a step of a task that declares nothing is graded on, besides its data.
UNDECLARED: tuple[str, ...] = ("chart_type",)
#: Old element names a notebook may still declare -> what they read as.
LEGACY: dict[str, tuple[str, ...]] = {"axis_labels": ("x_label", "y_label")}


def current(elements: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``elements`` with each old name read as the ones that replaced it (``axis_labels``: both labels)."""
    out = [new for e in elements for new in LEGACY.get(e, (e,))]
    return tuple(dict.fromkeys(out))


def declared_elements(metadata: dict[str, Any], step: int) -> tuple[str, ...]:
    """The elements step ``step`` declares (schema-validated metadata of a loaded task)."""
    table = (metadata.get("cibench_lab") or {}).get("plot_elements")
    if table is None:
        return UNDECLARED
    return current(table.get(str(step), ()))
