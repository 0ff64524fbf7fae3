"""Rendering records without kernels: specs, PNG chunk detection on real matplotlib renders,
the notebook field, the sidecar, the built-in set's record, the start code's rcParams."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from cibench_lab.kernels.spec import START_CODE, rendering_code, start_code  # noqa: E402
from cibench_lab.tasks import sidecar  # noqa: E402
from cibench_lab.tasks.errors import TaskError  # noqa: E402
from cibench_lab.tasks.format import parse_notebook  # noqa: E402
from cibench_lab.tasks.library import TaskLibrary, builtin_dir  # noqa: E402
from cibench_lab.tasks.rendering import (  # noqa: E402
    STOCK_72,
    Rendering,
    RenderingError,
    TaskRendering,
    candidates,
    detect,
    parse,
    png_facts,
)

pytestmark = pytest.mark.fast


def figure_png(rendering: Rendering | None = None, **savefig) -> str:
    """A real figure, saved as the inline backend saves it (tight bbox, the figure's dpi and face)."""
    with matplotlib.rc_context(rendering.rc() if rendering else {}):
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [2, 0, 1])
        ax.set_title("a title")
        buf = io.BytesIO()
        fig.savefig(
            buf,
            format="png",
            bbox_inches="tight",
            facecolor=fig.get_facecolor(),
            edgecolor=fig.get_edgecolor(),
            **savefig,
        )
        plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


@pytest.mark.parametrize(
    ("spec", "preset", "dpi"),
    [
        ("stock", "stock", 100),
        ("legacy-inline", "legacy-inline", 72),
        ("stock:72", "stock", 72),
        ("150", "stock", 150),
    ],
)
def test_specs(spec, preset, dpi):
    r = parse(spec)
    assert (r.preset, r.dpi) == (preset, dpi)
    assert parse(r.name) == r


@pytest.mark.parametrize(
    ("spec", "says"), [("bogus", "expected a preset"), ("stock:0", "out of range"), ("x:72", "unknown")]
)
def test_bad_specs_say_what_is_wrong(spec, says):
    with pytest.raises(RenderingError, match=says):
        parse(spec)


def test_png_chunks_tell_dpi_software_and_a_transparent_face():
    for rendering in (
        Rendering.of("stock"),
        STOCK_72,
        Rendering.of("legacy-inline"),
        Rendering.of("legacy-inline", 100),
    ):
        facts = png_facts(figure_png(rendering))
        assert facts is not None and facts.by_matplotlib and facts.version == matplotlib.__version__
        assert facts.dpi == rendering.dpi and facts.transparent_corner is rendering.transparent
        assert detect([figure_png(rendering)]).rendering == rendering


def test_chunks_past_the_first_read_are_still_found():
    long = figure_png(Rendering.of("legacy-inline"), metadata={"Description": "x" * 40000})
    facts = png_facts(long)
    assert facts is not None and facts.dpi == 72 and facts.transparent_corner is True


def test_no_matplotlib_png_is_an_assumption():
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (20, 10), "white").save(buf, format="PNG", dpi=(72, 72))
    pil = base64.b64encode(buf.getvalue()).decode()
    assert png_facts(pil) is not None and not png_facts(pil).by_matplotlib
    assert png_facts("bm90IGEgcG5n") is None
    assumed = detect([pil, "not base64 at all!"])
    assert assumed.basis == "assumed" and assumed.rendering == Rendering() and assumed.needs_verify
    mixed = detect([figure_png(STOCK_72), figure_png(STOCK_72), figure_png(Rendering.of("stock"))])
    assert mixed.rendering == STOCK_72 and "2 of 3 PNGs at 72 dpi" in mixed.detail


def test_candidates_try_the_other_preset_first():
    assert candidates(STOCK_72) == [Rendering.of("legacy-inline"), Rendering.of("stock")]


def notebook(meta: dict | None = None, image: str | None = None) -> bytes:
    outputs = [{"output_type": "display_data", "data": {"image/png": image}, "metadata": {}}] if image else []
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "Plot it."},
        {
            "cell_type": "code",
            "metadata": {},
            "source": "plt.plot([1])",
            "outputs": outputs,
            "execution_count": 1,
        },
    ]
    metadata = {"cibench_lab": {"schema_version": 1, **meta}} if meta is not None else {}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}).encode()


def test_a_declared_rendering_wins_and_a_bad_one_names_the_field(tmp_path):
    png = figure_png(Rendering.of("stock"))
    task = parse_notebook(
        notebook({"rendering": {"preset": "legacy-inline"}}, png), tmp_path / "t.ipynb", "a/b/t", None
    )
    assert task.rendering == TaskRendering(Rendering.of("legacy-inline"), "declared")
    assert parse_notebook(notebook(None, png), tmp_path / "t.ipynb", "a/b/t", None).rendering.basis == "pHYs"
    with pytest.raises(TaskError, match=r"metadata\.cibench_lab\.rendering.*dpi"):
        parse_notebook(
            notebook({"rendering": {"preset": "stock", "dpi": -1}}), tmp_path / "t.ipynb", "a/b/t", None
        )
    with pytest.raises(TaskError, match=r"metadata\.cibench_lab\.rendering\.preset"):
        parse_notebook(notebook({"rendering": {"preset": "retro"}}), tmp_path / "t.ipynb", "a/b/t", None)


def task_dir(root: Path, image: str) -> Path:
    path = root / "cibench_template" / "matplotlib" / "t.ipynb"
    path.parent.mkdir(parents=True)
    path.write_bytes(notebook(None, image))
    return root


def test_the_sidecar_overrides_detection_and_falls_back_to_the_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter"))
    root = task_dir(tmp_path / "tasks", figure_png(Rendering.of("stock")))
    assert TaskLibrary.load([root]).get("cibench_template/matplotlib/t").rendering.basis == "pHYs"
    confirmed = TaskRendering(Rendering.of("legacy-inline"), "sidecar", True, "by hand")
    assert sidecar.update(root, {"cibench_template/matplotlib/t": confirmed}) == sidecar.in_dir(root)
    assert TaskLibrary.load([root]).get("cibench_template/matplotlib/t").rendering == confirmed
    # A task directory that cannot be written: the sidecar goes to the data dir, and is read from there.
    other = task_dir(tmp_path / "readonly", figure_png(Rendering.of("stock")))
    (other / sidecar.FOLDER).write_text("a file where the sidecar folder would be")
    assert sidecar.update(other, {"cibench_template/matplotlib/t": confirmed}) == sidecar.in_data_dir(other)
    assert TaskLibrary.load([other]).get("cibench_template/matplotlib/t").rendering == confirmed


def test_an_unreadable_sidecar_is_skipped_with_a_warning(tmp_path, caplog):
    root = task_dir(tmp_path / "tasks", figure_png(STOCK_72))
    sidecar.in_dir(root).parent.mkdir()
    sidecar.in_dir(root).write_text(
        json.dumps({"tasks": {"cibench_template/matplotlib/t": {"preset": "retro"}}})
    )
    assert TaskLibrary.load([root]).get("cibench_template/matplotlib/t").rendering.basis == "pHYs"
    assert "unknown rendering preset 'retro'" in caplog.text


def test_the_builtin_set_records_how_it_was_built():
    lib = TaskLibrary.load([builtin_dir()])
    vis = 0
    for task in lib.tasks.values():
        assert task.rendering == TaskRendering(STOCK_72, "declared"), task.id
        detected = parse_notebook(task.path.read_bytes(), task.path, task.id, None).rendering
        if detected.basis != "assumed":
            vis += 1
            assert detected.rendering == STOCK_72, (task.id, detected)
    assert vis > 50


def test_start_code_sets_the_rendering_rcparams():
    assert start_code(STOCK_72).startswith(START_CODE)
    for rendering in (Rendering.of("legacy-inline"), Rendering.of("stock")):
        with matplotlib.rc_context():
            exec(rendering_code(rendering), {})
            assert matplotlib.rcParams["figure.dpi"] == rendering.dpi
            assert matplotlib.rcParams["savefig.dpi"] == "figure"
            size = (6.0, 4.0) if rendering.transparent else (6.4, 4.8)
            assert tuple(matplotlib.rcParams["figure.figsize"]) == size
            assert (matplotlib.rcParams["figure.facecolor"] == (1, 1, 1, 0)) is rendering.transparent
