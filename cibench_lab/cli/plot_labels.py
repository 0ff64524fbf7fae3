"""Readable labels for the comparison's time-vs-difficulty plot (matplotlib): steps tied at one point
(the same difficulty and median, as the tables round them) share one label, ``cmp_a #1 +8 tied``; each
label goes beside its point where its box stays in the axes and clears the labels placed before, the
points and their IQR bars — measured by the renderer — or nowhere (the plot's note lists such points),
as the lab's scatter places them (src/study/placing.ts)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # matplotlib is imported where it draws: the CLI starts without it
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

#: offsets (points) tried in turn: right of the point, then left, level with it, then a line
#: higher or lower, then further away
OFFSETS = [(dx * side, dy * 9) for dy in (0, 1, -1, 2, -2, 3, -3) for side in (1, -1) for dx in (6,)]
FONT = "x-small"


@dataclass
class Point:
    """Steps drawn at one point: their labels, the point's difficulty, median time and IQR."""

    labels: list[str]
    x: float
    y: float
    q1: float
    q3: float

    @property
    def label(self) -> str:
        more = len(self.labels) - 1
        return self.labels[0] + (f" +{more} tied" if more else "")

    def where(self) -> str:
        """``difficulty 1.45, 30.0 s [30.0–30.0]``."""
        return f"difficulty {self.x:.2f}, {self.y:.1f} s [{self.q1:.1f}–{self.q3:.1f}]"


def points(steps: list[dict[str, Any]]) -> list[Point]:
    """The steps (with a median time and a difficulty) grouped by where they are drawn, in order."""
    found: dict[tuple, Point] = {}
    for row in steps:
        t = row["humans"]["time"]
        name = row["task"].rsplit("/", 1)[-1]
        label = f"{name} #{row['step'] + 1}" + (" *" if row["mismatch"] else "")
        q1 = t["q1"] if t["q1"] is not None else t["median"]
        q3 = t["q3"] if t["q3"] is not None else t["median"]
        key = (f"{row['difficulty']:.2f}", f"{t['median']:.1f}", f"{q1:.1f}", f"{q3:.1f}")
        if key in found:
            found[key].labels.append(label)
        else:
            found[key] = Point([label], row["difficulty"], t["median"], q1, q3)
    return list(found.values())


def place(ax: Axes, groups: list[Point]) -> list[Point]:
    """Annotate each point beside it where there is room (the tied first); the points left without one."""
    canvas = cast("FigureCanvasAgg", ax.figure.canvas)  # the plots are drawn with Agg (write_plots)
    renderer = canvas.get_renderer()
    taken = [_mark_box(ax, g) for g in groups]
    left: list[Point] = []
    for g in sorted(groups, key=lambda g: -len(g.labels)):
        if not _annotate(ax, renderer, g, taken):
            left.append(g)
    return left


def _annotate(ax: Axes, renderer: RendererBase, g: Point, taken: list[Bbox]) -> bool:
    for dx, dy in OFFSETS:
        ann = ax.annotate(
            g.label, (g.x, g.y), xytext=(dx, dy), textcoords="offset points", fontsize=FONT,
            ha="left" if dx > 0 else "right", va="center",
        )  # fmt: skip
        box = ann.get_window_extent(renderer).expanded(1.0, 1.0).padded(1)
        if _inside(box, ax.bbox) and not any(box.overlaps(t) for t in taken):
            taken.append(box)
            return True
        ann.remove()
    return False


def _mark_box(ax: Axes, g: Point) -> Bbox:
    """The box of a point's marker and IQR bar, in display pixels."""
    from matplotlib.transforms import Bbox

    dot = 4 * ax.figure.dpi / 72  # the marker's radius (6 pt wide) and a margin
    (x, y_lo), (_, y_hi) = ax.transData.transform([(g.x, g.q1), (g.x, g.q3)])
    (_, y_mid) = ax.transData.transform((g.x, g.y))
    return Bbox([[x - dot, min(y_lo, y_mid - dot)], [x + dot, max(y_hi, y_mid + dot)]])


def _inside(box: Bbox, outer: Bbox) -> bool:
    return box.x0 >= outer.x0 and box.y0 >= outer.y0 and box.x1 <= outer.x1 and box.y1 <= outer.y1


def note(ties: list[Point], unlabelled: list[Point]) -> list[str]:
    """The plot's note: the steps of each tied point, then the points whose label found no room."""
    lines = [f"tied at {g.where()}: {', '.join(g.labels)}" for g in ties]
    lines += [f"not labelled, at {g.where()}: {', '.join(g.labels)}" for g in unlabelled]
    return lines
