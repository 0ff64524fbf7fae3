"""The CLI's comparison plots (`report --compare … --plots`) are readable: on a comparison whose
figures crowd (compare_ties: nine steps tied at one point, at the hardest difficulty), no text of
either figure lies outside it or over another text (matplotlib's own text boxes, as drawn), the tied
steps share one label and the note under the plot names each of them. No kernel: the people and the
run are recorded through the engine's Attempts API."""

from __future__ import annotations

import pytest
from compare_ties import RUN, STUDY, TIED, record, write_tie_tasks

from cibench_lab.cli.compare_plots import library_figure, time_figure, write_plots
from cibench_lab.store import Store
from cibench_lab.studies.comparison import compare
from cibench_lab.tasks.library import TaskLibrary

pytestmark = pytest.mark.fast


@pytest.fixture(scope="module")
def crowded(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("ties")
    root = tmp / "tasks"
    write_tie_tasks(root)
    db = f"sqlite:///{tmp / 'results.sqlite'}"
    record(db, root)
    store = Store(db)
    try:
        return compare(store, STUDY, [RUN], "fair", False, lambda: TaskLibrary.load([root]))
    finally:
        store.dispose()


def drawn_texts(fig) -> list[tuple[str, object]]:
    """Every text the figure draws, with its box in pixels: titles, axis labels, the tick labels of the
    ticks within the axes' limits, annotations, legends and the figure's own texts."""
    import matplotlib.pyplot as plt

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = list(fig.texts)
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.texts]
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            texts += [t.label1 for t in axis.get_major_ticks() if lo <= t.get_loc() <= hi]
        legend = ax.get_legend()
        texts += legend.get_texts() if legend else []
    shown = [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_visible() and t.get_text()]
    plt.close(fig)
    return shown


def readable(fig, name: str) -> list[str]:
    size = fig.bbox
    texts = drawn_texts(fig)
    outside = [text for text, box in texts if box.x0 < size.x0 - 0.5 or box.x1 > size.x1 + 0.5
               or box.y0 < size.y0 - 0.5 or box.y1 > size.y1 + 0.5]  # fmt: skip
    assert not outside, f"{name}: clipped {outside}"
    crossed = [
        (a, b) for i, (a, box) in enumerate(texts) for b, other in texts[i + 1 :] if box.overlaps(other)
    ]
    assert not crossed, f"{name}: overlapping texts {crossed}"
    return [text for text, _ in texts]


def test_the_time_plot_labels_tied_steps_once_and_overlaps_nothing(crowded):
    texts = readable(time_figure(crowded), "time_vs_difficulty.png")
    assert f"cmp_many #1 +{TIED - 1} tied" in texts
    assert not any(t.startswith("cmp_many #2") for t in texts)  # the tied steps share one label
    (note,) = [t for t in texts if t.startswith("tied at")]
    assert " ".join(note.split()).endswith(", ".join(f"cmp_many #{i + 1}" for i in range(TIED))), note
    for label in ("cmp_a #1", "cmp_a #2", "cmp_a #3", "cmp_b #1", "cmp_b #2"):
        assert label in texts, texts


def test_the_library_bars_overlap_nothing(crowded):
    texts = readable(library_figure(crowded), "libraries.png")
    assert "sklearn" in texts and RUN in texts


def test_write_plots_writes_both_pngs(crowded, tmp_path):
    paths = write_plots(crowded, str(tmp_path / "plots"))
    assert [p.rsplit("/", 1)[-1] for p in paths] == ["libraries.png", "time_vs_difficulty.png"]
    for path in paths:
        assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
