"""A class's task list (``CIBenchLabApp.class_tasks``): the teacher names the tasks their class
plays (ids or patterns such as ``classroom/*``); a student of the class lists only those, and the
API refuses them every other task (its page and its Start); the teacher, a researcher and anyone
in no such class see every task. On a real Jupyter server whose roles come from its settings."""

from __future__ import annotations

import pytest
from conftest import PROBE_ID

from cibench_lab.auth.class_tasks import ClassTasks
from cibench_lab.auth.roles import RoleSettings, identity
from cibench_lab.errors import BadInput

pytestmark = pytest.mark.fast

OTHER = "cibench_template/matplotlib/camera_image_display"  # a built-in task not on the list


def test_a_student_sees_their_classes_tasks_and_a_teacher_every_task():
    tasks = ClassTasks.of({"stats": ["classroom/*", PROBE_ID], "bio": ["cibench_template/scipy/*"]})
    settings = RoleSettings.of(["teach"], ["rita"], {"stats": ["ada", "teach"], "bio": ["ada", "bob"]})
    ada, bob, carl = (identity(n, settings) for n in ("ada", "bob", "carl"))
    assert tasks.allows(ada, "classroom/pandas/bills") and tasks.allows(ada, PROBE_ID)
    assert tasks.allows(ada, "cibench_template/scipy/dnase_growth_curves")  # bio's too: she is in both
    assert not tasks.allows(ada, OTHER)
    assert not tasks.allows(bob, PROBE_ID) and tasks.allows(bob, "cibench_template/scipy/dnase_growth_curves")
    assert tasks.allows(carl, OTHER)  # in no class with a list: every task
    for who in ("teach", "rita"):  # an instructor, a researcher: every task
        assert tasks.allows(identity(who, settings), OTHER), who
    assert ClassTasks.of({}).allows(ada, OTHER)


def test_a_malformed_list_names_the_setting():
    with pytest.raises(BadInput, match=r"CIBenchLabApp.class_tasks\['stats'\]: a list of task ids"):
        ClassTasks.of({"stats": "classroom/*"})
    with pytest.raises(BadInput, match=r"CIBenchLabApp.class_tasks: a class name is"):
        ClassTasks.of({"no such/class": ["x"]})


@pytest.fixture
def jp_server_config(jp_server_config):
    options = {
        "participant": "ada",
        "instructors": ["teach"],
        "class_members": {"stats": ["ada", "teach"]},
        "class_tasks": {"stats": ["cibench_template/pandas/leak_*"]},
    }
    return {**jp_server_config, "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **options}}


async def test_a_student_lists_and_starts_only_the_classes_tasks(jp_serverapp, api):
    code, tasks = await api("GET", "tasks")
    assert code == 200 and [t["id"] for t in tasks] == [PROBE_ID]
    assert (await api("GET", f"tasks/{PROBE_ID}"))[0] == 200
    refusal = f"task {OTHER!r} is not one of your class's tasks (stats)"
    assert await api("GET", f"tasks/{OTHER}") == (403, {"error": refusal, "status": 403})
    code, err = await api("POST", "attempts", {"task_id": OTHER, "mode": "e2e"})
    assert (code, err["error"]) == (403, refusal)


async def test_the_teacher_and_someone_in_no_listed_class_see_every_task(jp_serverapp, api):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    for settings in (
        RoleSettings.of(["ada"], [], {"stats": ["ada"]}),  # ada teaches stats
        RoleSettings.of([], [], {"bio": ["ada"]}),  # ada's class has no list
    ):
        services.roles.settings = settings
        code, tasks = await api("GET", "tasks")
        assert code == 200 and OTHER in [t["id"] for t in tasks] and len(tasks) > 100, settings
        assert (await api("GET", f"tasks/{OTHER}"))[0] == 200


def test_the_hub_configs_command_line_sets_the_list(tmp_path, monkeypatch):
    """``docs/jupyterhub_config.example.py`` with ``CLASS_TASKS`` filled in passes the list on each
    server's command line, which the server reads before it knows the extension's traits."""
    from pathlib import Path

    from jupyter_server.serverapp import ServerApp
    from traitlets.config import Config

    from cibench_lab.app import CIBenchLabApp

    example = Path(__file__).resolve().parents[2] / "docs" / "jupyterhub_config.example.py"
    source = example.read_text(encoding="utf-8")
    assert "CLASS_TASKS: list[str] = []\n" in source  # every task, unless the teacher lists some
    source = source.replace("CLASS_TASKS: list[str] = []", 'CLASS_TASKS: list[str] = ["classroom/*"]')
    monkeypatch.setenv("CIBENCH_CLASS_DIR", str(tmp_path))
    monkeypatch.setenv("CIBENCH_CLASS_PASSWORD", "a class password")
    c = Config()
    exec(compile(source, str(example), "exec"), {"get_config": lambda: c, "__name__": "config"})
    args = [a for a in c.Spawner.args if a.startswith("--CIBenchLabApp.class_tasks=")]
    server = ServerApp()
    server.parse_command_line(args)
    assert CIBenchLabApp(config=server.config).class_tasks == {"demo": ["classroom/*"]}
