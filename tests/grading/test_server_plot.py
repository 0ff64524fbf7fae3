"""The plot structure through the real server: the lab's own IOPub capture keeps it beside the
PNG, the store records it, and the fair grade the browser receives compares what the figure
shows without revealing the reference."""

from __future__ import annotations

import json

import nbformat
import pytest
from conftest import server_config
from figures import output
from matplotlib.figure import Figure
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from cibench_lab.tasks.plot import FIGURE_MIME

VIS_ID = "cibench_template/matplotlib/three_bars"
BARS = "import matplotlib.pyplot as plt\nplt.bar(['a', 'b', 'c'], {})\n"
REFERENCE = BARS.format([2, 3, 4]) + "plt.title('Secret')\nplt.show()"


@pytest.fixture
def task_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("plot-tasks")
    fig = Figure()
    ax = fig.subplots()
    ax.bar(["a", "b", "c"], [2, 3, 4])
    ax.set_title("Secret")
    shown = nbformat.from_dict(output(fig))  # a reference recorded with its structure
    cells = [new_markdown_cell("Plot the bars."), new_code_cell(REFERENCE, outputs=[shown])]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["vis"]
    nb.metadata["cibench_lab"] = {
        "schema_version": 1,
        "title": "Three bars",
        "language": "en",
        "plot_elements": {"0": ["title"]},
    }
    path = root / "cibench_template" / "matplotlib" / "three_bars.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True)
    return root


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    # the lab shows the fair grades: the badge is the structural plot grade
    return server_config(tmp_path, [task_root], grading_workers=1, profile="fair")


async def test_a_lab_turn_keeps_the_structure_and_is_graded_on_it(start_attempt, jp_serverapp):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    assert services.library.get(VIS_ID).steps[0].plot_elements == ("title",)
    b = await start_attempt(VIS_ID, turn_cap=3)
    code, r = await b.turn(0, BARS.format([2, 3, 5]) + "plt.show()")
    assert code == 200, r
    (recorded,) = services.attempts.turns(b.attempt["id"], 0)
    (shown,) = [o for o in recorded.outputs if "image/png" in o.get("data", {})]
    assert FIGURE_MIME in shown["data"]  # the server's own IOPub capture, then the store
    fair = recorded.grade["fair"]
    assert fair["detail"].startswith("data differs: 1 of 3 bars differs; missing the declared title"), fair
    assert r["grade"]["detail"] == fair["detail"]  # what the badge says (profile = fair)
    assert recorded.grade["cibench"]["detail"].startswith("plot SSIM")  # stored too, not shown
    assert "Secret" not in str(r) and "Secret" not in str(recorded.grade)
    code, r = await b.turn(0, REFERENCE)
    assert code == 200, r
    (_, again) = services.attempts.turns(b.attempt["id"], 0)
    assert again.grade["fair"]["passed"] and again.grade["fair"]["score"] == 1.0, again.grade["fair"]


async def test_the_lab_shows_the_configured_profile(jp_fetch, start_attempt):
    settings = json.loads((await jp_fetch("cibench-lab", "api", "settings")).body)
    assert settings["profile"] == "fair"
    b = await start_attempt(VIS_ID, turn_cap=3)
    code, _ = await b.turn(0, REFERENCE)
    assert code == 200
    view = json.loads((await jp_fetch("cibench-lab", "api", "attempts", b.attempt["id"])).body)
    assert view["profile"] == "fair"
    assert view["steps"][0]["grade"]["detail"].startswith("data matches"), view["steps"][0]["grade"]
