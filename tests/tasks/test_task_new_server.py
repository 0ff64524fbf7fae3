"""`POST tasks`: the lab's "Make a CIBench Task from This Notebook" checks, then makes, a task the
server serves at once; paths stay under the server root; only an instructor or a researcher may."""

from __future__ import annotations

import pytest
from conftest import server_config
from newtask import GOOD, LOAD, write_solution

from cibench_lab.auth.roles import RoleSettings

TASK_ID = "classroom/pandas/bills_week"


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    made = str(tmp_path / "made")
    teacher = {"participant": "teach", "instructors": ["teach"]}  # the server's user teaches
    return server_config(tmp_path, [task_root], new_tasks_dir=made, turn_timeout=60.0, **teacher)


@pytest.mark.fast
async def test_only_an_instructor_or_a_researcher_makes_a_task(jp_serverapp, api, jp_root_dir, tmp_path):
    """A participant is refused before the notebook is even looked for; either role gets past."""
    services = jp_serverapp.web_app.settings["cibench_lab"]
    code, doc = await api("GET", "openapi.json")
    assert doc["paths"]["/cibench-lab/api/tasks"]["post"]["x-role"] == ["instructor", "researcher"]
    assert doc["paths"]["/cibench-lab/api/tasks"]["get"]["x-role"] == "participant"
    services.roles.settings = RoleSettings()  # teach is a participant only
    code, body = await api("POST", "tasks", {"notebook": "t/none.ipynb", "check": True})
    assert (code, body["error"]) == (403, "POST /tasks needs the instructor or researcher role")
    assert (await api("GET", "tasks"))[0] == 200  # the task list stays everyone's
    for settings in (RoleSettings(researchers=frozenset({"teach"})), RoleSettings(frozenset({"teach"}))):
        services.roles.settings = settings
        code, body = await api("POST", "tasks", {"notebook": "t/none.ipynb", "check": True})
        assert code == 400 and "no notebook 't/none.ipynb'" in body["error"], settings
    assert not (tmp_path / "made").exists()


async def test_a_notebook_is_checked_then_made_and_served_at_once(api, jp_root_dir, tmp_path):
    write_solution(jp_root_dir / "teacher", GOOD)
    code, body = await api("POST", "tasks", {"notebook": "teacher/bills_week.ipynb", "check": True})
    assert code == 200, body
    assert (body["task_id"], body["written"], body["refusals"]) == (TASK_ID, False, [])
    kinds = [(s["cell"], s["kind"], s["tagged"]) for s in body["steps"]]
    assert kinds == [(3, "exec", False), (5, "num", False), (7, "text", True), (9, "vis", False)]
    assert not (tmp_path / "made").exists()
    code, listed = await api("GET", "tasks")
    assert TASK_ID not in [t["id"] for t in listed]

    code, body = await api("POST", "tasks", {"notebook": "teacher/bills_week.ipynb"})
    assert code == 200 and body["written"] and body["path"] == f"new_tasks_dir/{TASK_ID}.ipynb"
    code, listed = await api("GET", "tasks")
    assert TASK_ID in [t["id"] for t in listed]
    code, task = await api("GET", f"tasks/{TASK_ID}")
    assert code == 200 and [i["kind"] for i in task["instructions"]] == ["exec", "num", "text", "vis"]
    code, attempt = await api("POST", "attempts", {"task_id": TASK_ID, "mode": "e2e"})
    assert code == 201, attempt
    assert (jp_root_dir / attempt["notebook_path"]).parent.joinpath("data", "bills.csv").is_file()


@pytest.mark.fast
async def test_refusals_come_back_per_cell_and_paths_stay_under_the_root(api, jp_root_dir, tmp_path):
    write_solution(jp_root_dir / "t", [LOAD, "Print the mean of `tip`."])
    code, body = await api("POST", "tasks", {"notebook": "t/bills_week.ipynb"})
    assert code == 200 and not body["written"]
    assert body["refusals"] == [{"cell": 3, "message": "cell 3: an instruction with no code cell after it"}]
    code, body = await api("POST", "tasks", {"notebook": "../outside.ipynb"})
    assert code == 400 and body["error"] == "notebook: '../outside.ipynb' is outside the server root"
    code, body = await api("POST", "tasks", {"notebook": "t/bills_week.ipynb", "data": "/../.."})
    assert code == 400 and "data: '/../..' is outside the server root" in body["error"]
    code, body = await api("POST", "tasks", {"notebook": "t/none.ipynb"})
    assert code == 400 and "no notebook 't/none.ipynb'" in body["error"]
    code, body = await api("POST", "tasks", {"notebook": "t/bills_week.ipynb", "lib": "xgboost"})
    assert code == 400 and body["error"].startswith("lib: Input should be 'lightgbm'")

    linked = write_solution(jp_root_dir / "l", GOOD, data=False)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (linked.parent / "data").symlink_to(outside)  # data/ beside the notebook leads out of the root
    code, body = await api("POST", "tasks", {"notebook": "l/bills_week.ipynb", "check": True})
    assert code == 400 and body["error"] == "data: data/ leads outside the server root"


@pytest.mark.fast
def test_the_routes_libraries_are_the_task_libraries():
    from typing import get_args

    from cibench_lab.handlers.schemas import Library
    from cibench_lab.tasks.solution import LIBRARIES

    assert get_args(Library.__value__) == LIBRARIES
