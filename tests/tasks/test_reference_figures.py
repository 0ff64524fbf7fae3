"""The reference figure sidecar read back: keyed by the notebook's content, bounded, and a file
that cannot be read is reported, never fatal (no kernel: the recording is in test_task_rendering)."""

from __future__ import annotations

import json
import logging

import pytest

from cibench_lab.tasks import reference_figures
from cibench_lab.tasks.plot import FIGURE_MAX_BYTES

TASK_ID = "cibench_template/matplotlib/points"


@pytest.mark.fast
def test_recorded_figures_are_read_for_the_same_content_only(tmp_path):
    path = reference_figures.record(tmp_path, TASK_ID, "hash-1", {2: {"axes": []}})
    assert path == tmp_path / ".cibench-lab" / "figures" / f"{TASK_ID}.json"
    reference_figures.record(tmp_path, TASK_ID, "hash-1", {4: {"axes": [1]}})
    assert reference_figures.read(tmp_path, TASK_ID, "hash-1") == {2: {"axes": []}, 4: {"axes": [1]}}
    assert reference_figures.read(tmp_path, TASK_ID, "hash-2") == {}
    reference_figures.record(tmp_path, TASK_ID, "hash-2", {3: {"axes": []}})
    assert reference_figures.read(tmp_path, TASK_ID, "hash-2") == {3: {"axes": []}}, "old content dropped"


@pytest.mark.fast
def test_an_unreadable_or_oversized_figure_sidecar_is_reported_and_ignored(tmp_path, caplog):
    path = reference_figures.in_dir(tmp_path, TASK_ID)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert reference_figures.read(tmp_path, TASK_ID, "h") == {}
    assert "reference figure sidecar" in caplog.text and str(path) in caplog.text
    big = {"pad": "x" * (FIGURE_MAX_BYTES + 1)}
    doc = {"tasks": {TASK_ID: {"content_hash": "h", "steps": {"1": big}}}}
    path.write_text(json.dumps(doc))
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert reference_figures.read(tmp_path, TASK_ID, "h") == {}
    assert f"tasks.{TASK_ID}.steps.1: larger than" in caplog.text
    path.write_text(json.dumps({"tasks": {TASK_ID: {"content_hash": "h", "steps": {"x": {}}}}}))
    assert reference_figures.read(tmp_path, TASK_ID, "h") == {}


@pytest.mark.fast
def test_a_structure_recorded_before_shown_images_is_replaced_by_a_recorded_one():
    import dataclasses

    from figures import output, step_of
    from test_grading_fair_vis import CAMERA, overlay

    from cibench_lab.tasks.plot import FIGURE_MIME

    fresh = output(overlay(CAMERA, 100, "listed"))
    old = json.loads(json.dumps(fresh))
    for axes in old["data"][FIGURE_MIME]["axes"]:
        del axes["shown"]
    step = step_of(old, ())
    assert reference_figures.has_structure(step_of(fresh, ()))
    assert not reference_figures.has_structure(step)  # tasks verify records a fresh one for it
    task = dataclasses.make_dataclass("T", [("steps", tuple)])((dataclasses.replace(step, kind="vis"),))
    attached = reference_figures.attach(task, {0: fresh["data"][FIGURE_MIME]})
    assert attached.steps[0].outputs[0]["data"][FIGURE_MIME] == fresh["data"][FIGURE_MIME]
