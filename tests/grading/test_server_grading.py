"""A plot turn through the real server (and the CLI): graded in the Grader's worker processes,
judged by the VisionJudge the app (the CLI) built from its traits (flags), against the scripted
server, recorded as grade_all says."""

from __future__ import annotations

import nbformat
import pytest
from conftest import server_config
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from openai_server import ScriptedServer
from test_grading_pool import plot_png

from cibench_lab.grading import grade_all
from cibench_lab.models.judge import VisionJudge
from cibench_lab.play.attempt import turn_output

VIS_ID = "cibench_template/matplotlib/one_plot"
KEY = "sk-test-judge"
PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('mine')\nplt.show()"


@pytest.fixture
def task_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("vis-tasks")
    ref = new_output("display_data", data={"image/png": plot_png("the reference"), "text/plain": "<Figure>"})
    nb = new_notebook(cells=[new_markdown_cell("Plot the series."), new_code_cell(PLOT, outputs=[ref])])
    nb.metadata["step_types"] = ["vis"]
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "One plot", "language": "en"}
    path = root / "cibench_template" / "matplotlib" / "one_plot.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True)
    return root


@pytest.fixture
def judge_server(monkeypatch):
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", KEY)
    srv = ScriptedServer([{"reply": "6"}], model="judge-vl", key=KEY, max_tokens=32, temperature=0.0)
    yield srv.start()
    srv.stop()


@pytest.fixture
def jp_server_config(tmp_path, task_root, judge_server):
    return server_config(
        tmp_path,
        [task_root],
        judge_model="judge-vl",
        judge_base_url=judge_server.base_url,
        judge_api_key_env="JUDGE_KEY_FOR_TEST",
        grading_workers=1,
        extra={"VisionJudge": {"timeout": 30.0}},
    )


async def test_plot_turn_graded_off_the_engine_thread_and_judged(start_attempt, jp_serverapp, judge_server):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    vlm = services.lab.grader.verdicts.judge
    assert isinstance(vlm, VisionJudge) and (vlm.model, vlm.timeout) == ("judge-vl", 30.0)
    b = await start_attempt(VIS_ID)
    code, r = await b.turn(0, PLOT)
    assert code == 200 and r["grade"]["metric"] == "vis_sim" and 0 < r["grade"]["score"] < 1, r
    assert services.lab.grader._processes is not None  # the worker pool graded it
    (recorded,) = services.attempts.turns(b.attempt["id"], 0)
    verdict = recorded.grade["fair"]["judge"]
    assert verdict == {"model": "judge-vl", "score": 0.6, "reply": "6", "error": None, "cached": False}
    step = services.library.get(VIS_ID).steps[0]
    assert recorded.grade == grade_all(step, [turn_output(recorded)], verdict)
    sent = judge_server.requests[0]["body"]["messages"][0]["content"][1]["image_url"]["url"]
    assert sent == "data:image/png;base64," + recorded.outputs[0]["data"]["image/png"]
    judge_server.check()


def test_cli_run_injects_the_judge_from_its_flags(task_root, judge_server, tmp_path, capsys):
    from cibench_lab.cli import main
    from cibench_lab.store import Store
    from cibench_lab.store.tables import Turn

    db = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    judge = ["--judge-model", "judge-vl", "--judge-base-url", judge_server.base_url]
    argv = ["--task-dir", str(task_root), "--db", db, "run", "--no-progress", "--grading-workers", "1"]
    argv += [*judge, "--judge-api-key-env", "JUDGE_KEY_FOR_TEST", "--tasks", VIS_ID]
    assert main(argv) == 0, capsys.readouterr()
    store = Store(db)
    with store.session() as s:
        (grade,) = [t.grade for t in s.query(Turn)]
    store.dispose()
    assert grade["fair"]["judge"]["score"] == 0.6 and len(judge_server.requests) == 1
    judge_server.check()
