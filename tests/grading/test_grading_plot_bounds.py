"""The figure structure is untrusted (the player's code runs where it is made): malformed,
oversized, deep or odd bundles fall back to SSIM and say so, never crash; the capture never
raises into the player's code; the turn bounds keep a large bundle."""

from __future__ import annotations

import copy

import pytest
from figures import bars, grades, line, output, step_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from cibench_lab.grading import TurnOutput, grade
from cibench_lab.grading.figure import FigureError, read_figure
from cibench_lab.kernels.inkernel import figure_capture
from cibench_lab.tasks.plot import FIGURE_MIME

pytestmark = pytest.mark.fast


def _oversized() -> dict:
    pred = output(line())
    bundle = pred["data"][FIGURE_MIME]
    big = {"shape": [60000, 2], "data": [0.123456789] * 120000}
    bundle["axes"][0]["artists"] = [{"type": "line", "xy": big}] * 2
    return pred


def _nested(depth: int) -> list:
    value: list = [1]
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda b: b.update(version=7), "schema"),
        (lambda b: b.update(axes="nope"), "schema"),
        (lambda b: b["axes"][0]["artists"][0]["xy"].update(data=["x"] * 20), "not a number"),
        (lambda b: b["axes"][0]["artists"][0]["xy"].update(shape=[3, 2]), "fill its shape"),
        (lambda b: b.update(extra=_nested(14)), "nested deeper"),
        (lambda b: b.clear() or b.update(version=1, omitted="too large", bytes=2_000_000), "omitted"),
    ],
)
def test_a_malformed_bundle_falls_back_to_ssim_without_crashing(spoil, reason):
    pred = output(line())
    spoil(pred["data"][FIGURE_MIME])
    with pytest.raises(FigureError, match=reason):
        read_figure(pred["data"][FIGURE_MIME])
    g = grades(output(line()), pred)["fair"]
    assert g["detail"].startswith("plot SSIM") and "not used" in g["detail"]


def _shown(spoil) -> dict:
    fig = Figure(figsize=(3, 3))
    fig.subplots().imshow([[0.0, 1.0], [1.0, 0.0]], cmap="gray")
    pred = output(fig)
    spoil(pred["data"][FIGURE_MIME]["axes"][0]["shown"])
    return pred


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda s: s.update(shape=[65, 64, 3]), "schema"),
        (lambda s: s.update(extra=1), "schema"),
        (lambda s: s.update(shape=[2, 2, 4], data=[0] * 16), "not RGB"),
        (lambda s: s.update(data=s["data"][:-1]), "does not fill"),
        (lambda s: s["data"].__setitem__(0, 300), "outside 0-255"),
        (lambda s: s["data"].__setitem__(0, "x"), "not a number"),
    ],
)
def test_a_malformed_shown_image_falls_back_to_ssim_without_crashing(spoil, reason):
    pred = _shown(spoil)
    with pytest.raises(FigureError, match=reason):
        read_figure(pred["data"][FIGURE_MIME])
    g = grades(_shown(lambda s: None), pred)["fair"]
    assert g["detail"].startswith("plot SSIM") and "not used" in g["detail"]


def test_an_oversized_bundle_falls_back_to_ssim_saying_so():
    g = grades(output(line()), _oversized())["fair"]
    assert "too large" in g["detail"] and g["detail"].startswith("plot SSIM")


def test_a_bundle_of_the_wrong_json_type_falls_back():
    for junk in (None, 3, "text", [1, 2], {"version": 1}):
        pred = output(line())
        pred["data"][FIGURE_MIME] = copy.deepcopy(junk)
        g = grades(output(line()), pred)["fair"]
        assert g["detail"].startswith("plot SSIM")


def test_capture_is_fast_and_never_raises():
    import time

    fig = bars()
    started = time.perf_counter()
    for _ in range(20):
        figure_capture.capture(fig)
    assert (time.perf_counter() - started) / 20 < 0.05

    class Broken(Figure):
        def get_axes(self):
            raise RuntimeError("boom")

    assert figure_capture.is_figure(Broken())
    assert figure_capture.capture(Broken()) is None
    assert figure_capture.capture("not a figure") is None


def test_a_large_bundle_is_kept_by_the_turn_bounds_and_json_counts_by_its_size():
    from cibench_lab.kernels.execution import MAX_TEXT, Execution

    def msg(data: dict) -> dict:
        return {"header": {"msg_type": "display_data"}, "content": {"data": data, "metadata": {}}}

    bundle = _oversized()["data"][FIGURE_MIME]  # about 2 MB of JSON: the grade falls back, the turn keeps it
    ex = Execution("m")
    for _ in range(3):
        ex.add(msg({"image/png": "iVBORw0KGgo=", FIGURE_MIME: bundle}))
    assert len(ex.outputs) == 3 and not ex.truncated
    assert ex.outputs[0]["data"][FIGURE_MIME] == bundle
    ex.add(msg({"application/json": {"x": "y" * MAX_TEXT}}))  # other JSON counts as text, by size
    assert ex.truncated and len(ex.outputs) == 3


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_BASE = None


def _base_bundle() -> dict:
    global _BASE
    if _BASE is None:
        fig = bars(title="t")
        fig.axes[0].plot([0, 1, 2], [1.0, 2.0, 3.0])
        fig.axes[0].scatter([0, 1], [2.0, 1.0])
        _BASE = output(fig)
    return _BASE


def _nodes(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutation_of_a_real_bundle_grades_without_raising(data):
    ref = _base_bundle()
    pred = copy.deepcopy(ref)
    bundle = pred["data"][FIGURE_MIME]
    paths = list(_nodes(bundle))[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = bundle
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this node
    g = grade(step_of(ref), [TurnOutput("plot()", [pred])], "fair").as_dict()
    assert 0.0 <= g["score"] <= 1.0 and g["detail"]
