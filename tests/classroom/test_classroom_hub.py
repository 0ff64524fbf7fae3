"""A class on a real JupyterHub with one PostgreSQL database (docs/teach/reference.md).

The hub runs the guide's own ``docs/jupyterhub_config.example.py`` (tests/hub.py): two students
and a teacher log in through the proxy's login form, each gets a single-user server with
cibench-lab connecting to one shared database as its own password-checked PostgreSQL role.
Both students play a step in a real browser through the proxy; the database holds both attempts
under their hub names; no route of another user's server reads a student's attempt; a student's
sandboxed kernel cannot reach the database port; the lab shows no "Jupyter news?" prompt; a task
the teacher makes on their server is listed and playable on a student's already-running server.
"""

from __future__ import annotations

import ast
import json
import re
import socket
import textwrap
import time
import urllib.error
import urllib.request

import psutil
import psycopg
import pytest
import requests
from hub import DATABASE, EXAMPLE, INSTRUCTORS, PASSWORD, REPO, STUDENTS, USERS, Classroom, role_of
from newtask import INTRO, LOAD, write_solution
from playwright.sync_api import Page, expect, sync_playwright
from ui.lab import launch_chromium
from ui.test_lab_play import EXPECTED_BADGE, badge, open_panel, run_in_cell, start_task

from cibench_lab.tasks.library import TaskLibrary, builtin_dir

TASK_ID = "cibench_template/pandas/penguins_raw_tidy"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"  # the lab's news and update settings
MADE = "classroom/pandas/bills_week"  # the task the teacher makes (tests/newtask.py's notebook)
SPAWN_TIMEOUT = 150_000  # ms: a single-user server's start under load, then JupyterLab's page
PLAY_TIMEOUT = 90_000  # ms: a first kernel's start, its run and its grade


@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    """No server-side event loop here (pytest-jupyter's autouse loop would be picked up, and later
    closed under, Playwright's sync driver): the hub and its servers are processes."""
    yield None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    """No in-process Jupyter server here."""
    yield


@pytest.fixture(scope="module")
def room():
    with Classroom() as classroom:
        yield classroom


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as pw:
        b = launch_chromium(pw)
        yield b
        b.close()


@pytest.mark.fast
def test_the_guide_quotes_the_config_the_hub_runs():
    """docs/teach/reference.md quotes the config file the hub below runs, never a copy that drifted."""
    config = EXAMPLE.read_text()
    compile(config, str(EXAMPLE), "exec")
    page = REPO / "docs" / "teach" / "reference.md"
    quoted = re.findall(r"```python\n(.*?)\n *```", page.read_text(), re.S)
    assert quoted
    for block in quoted:
        assert textwrap.dedent(block) in config, block


@pytest.mark.fast
def test_the_hubs_lab_settings_are_local_plays():
    """The config's overrides of the lab's settings are scripts/lab-settings' (no news, no updates)."""
    tree = ast.parse(EXAMPLE.read_text())
    (value,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["LAB_OVERRIDES"]
    ]
    local = json.loads((REPO / "scripts" / "lab-settings" / "overrides.json").read_text())
    assert ast.literal_eval(value) == local


def probe_code(port: int) -> str:
    """Step 0 as a student might answer it, and a try at the database port on the way."""
    return (
        "import os, socket\n"
        "import pandas as pd\n"
        "raw = pd.read_csv('data/penguins_raw.csv')\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"
        "    print('database reached')\n"
        "except OSError as err:\n"
        "    print('database unreachable:', type(err).__name__)\n"
        "print('url in kernel:', 'CIBENCH_LAB_DATABASE_URL' in os.environ)\n"
    )


def log_in(page: Page, hub_url: str, user: str) -> None:
    """The hub's login form, as a person fills it; the hub then spawns the user's server."""
    page.goto(f"{hub_url}/hub/login")
    page.locator("#username_input").fill(user)
    page.locator("#password_input").fill(PASSWORD)
    page.locator("#login_submit").click()


def wait_for_lab(page: Page, user: str) -> None:
    page.wait_for_url(re.compile(f"/user/{user}/lab"), timeout=SPAWN_TIMEOUT)
    page.wait_for_selector(".jp-LabShell", timeout=SPAWN_TIMEOUT)


def lab_fetch(page: Page, base: str, calls: list[tuple[str, str]], body: dict | None = None) -> list[tuple]:
    """Each call from the page with the server's XSRF token, as the lab sends it (a hub's server
    asks for it on every request its cookie authenticates): (method, path, status, text)."""
    script = """async ([base, calls, body]) => {
      const xsrf = (document.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1] || '';
      const out = [];
      for (const [method, path] of calls) {
        const init = {method, headers: {'X-XSRFToken': decodeURIComponent(xsrf)}};
        if (method === 'POST') {
          init.headers['Content-Type'] = 'application/json';
          init.body = JSON.stringify(body);
        }
        const resp = await fetch(base + path, init);
        out.push([method, path, resp.status, await resp.text()]);
      }
      return out;
    }"""
    return [tuple(answer) for answer in page.evaluate(script, [base, calls, body])]


def own_attempts(page: Page, user: str) -> list[dict]:
    """GET attempts from the page, as the panel asks its own server."""
    ((*_, status, text),) = lab_fetch(page, f"/user/{user}/cibench-lab/api", [("GET", "/attempts")])
    assert status == 200, text
    return json.loads(text)


def teacher_session(hub_url: str) -> requests.Session:
    """The teacher logs in with the same form (no browser): the hub spawns their server."""
    session = requests.Session()
    form = session.get(f"{hub_url}/hub/login", timeout=30)
    xsrf = re.search(r'name="_xsrf" value="([^"]+)"', form.text)
    assert xsrf, form.text[:500]
    data = {"username": INSTRUCTORS[0], "password": PASSWORD, "_xsrf": xsrf.group(1)}
    assert session.post(f"{hub_url}/hub/login", data=data, timeout=60).ok
    return session


def wait_for_server(session: requests.Session, hub_url: str, user: str) -> None:
    """Until the user's lab page answers from their own server (the OAuth round trip done)."""
    deadline = time.monotonic() + SPAWN_TIMEOUT / 1000
    while time.monotonic() < deadline:
        page = session.get(f"{hub_url}/user/{user}/lab", timeout=60)
        if page.status_code == 200 and f"/user/{user}/lab" in page.url:
            return
        time.sleep(1)
    raise AssertionError(f"{user}'s server did not start")


@pytest.fixture(scope="module")
def played(room, browser):
    """Everyone logged in; each student started the penguins task and ran step 0 through the proxy:
    student1 with the database probe, student2 with the reference. Returns {user: (page, attempt)}."""
    hub_url = room.hub.url
    teacher = teacher_session(hub_url)
    pages = {}
    for user in STUDENTS:
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        pages[user] = context.new_page()
        pages[user].set_default_timeout(30_000)
        log_in(pages[user], hub_url, user)  # both servers spawn at once
    reference = TaskLibrary.load([builtin_dir()]).get(TASK_ID).steps[0].code
    answers = {"student1": probe_code(room.pg.port), "student2": reference}
    result = {}
    for user, page in pages.items():
        wait_for_lab(page, user)
        open_panel(page)
        start_task(page, "penguins_raw_tidy", "end-to-end")
        run_in_cell(page, 0, answers[user])
        expect(badge(page, 0)).to_have_text(re.compile(EXPECTED_BADGE["exec"]), timeout=PLAY_TIMEOUT)
        attempts = own_attempts(page, user)
        assert len(attempts) == 1, attempts
        result[user] = (page, attempts[0])
    wait_for_server(teacher, hub_url, INSTRUCTORS[0])
    result["teacher"] = teacher
    yield result
    for user in STUDENTS:
        pages[user].context.close()


def rows(url: str, sql: str) -> list[tuple]:
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def test_both_students_play_through_the_proxy_into_one_database(room, played):
    found = rows(
        room.owner_url,
        "SELECT p.name, a.id, a.task_id, t.step, t.error FROM attempt a"
        " JOIN participant p ON p.id = a.participant_id JOIN turn t ON t.attempt_id = a.id ORDER BY p.name",
    )
    assert found == [(user, played[user][1]["id"], TASK_ID, 0, False) for user in STUDENTS], (
        "one attempt per student, under the hub's user name, each with its run of step 0"
    )
    # each server is connected as its own password-checked role, none as the tables' owner
    logins = {
        name
        for (name,) in rows(
            room.pg.url("postgres"), f"SELECT usename FROM pg_stat_activity WHERE datname = '{DATABASE}'"
        )
    }
    assert {role_of(user) for user in [*STUDENTS, *INSTRUCTORS]} <= logins, logins


def attempt_routes(page: Page, user: str, attempt_id: str) -> list[tuple[str, str]]:
    """Every participant's operation on an attempt that the user's own server documents, for
    ``attempt_id`` (paths from the server's base URL); an instructor's (``classes/attempts/…``)
    answers a student 403 before it reads anything (tests/lab/test_security.py)."""
    ((*_, status, text),) = lab_fetch(page, f"/user/{user}/cibench-lab/api", [("GET", "/openapi.json")])
    assert status == 200, text
    doc = json.loads(text)
    routes = [
        (method.upper(), path.replace("{attempt_id}", attempt_id))
        for path, item in doc["paths"].items()
        if "{attempt_id}" in path
        for method, op in item.items()
        if op["x-role"] == "participant"
    ]
    assert len(routes) >= 9, routes
    return routes


def test_a_student_cannot_read_the_others_attempt_by_any_route(room, played):
    page, mine = played["student2"]
    theirs = played["student1"][1]
    routes = attempt_routes(page, "student2", theirs["id"])
    ((kernel_id,),) = rows(room.owner_url, f"SELECT kernel_id FROM attempt WHERE id = '{mine['id']}'")
    # a body every route takes (a note's text besides), on student2's own kernel
    body = {"step": 0, "kernel_id": kernel_id, "msg_id": "m" * 32, "text": "mine now"}
    answers = lab_fetch(page, "/user/student2", routes, body)
    # the database's row-level security shows student2's role no such attempt
    assert [(m, p, status) for m, p, status, _ in answers] == [(m, p, 404) for m, p in routes]
    assert all("unknown attempt" in text for *_, text in answers), answers
    assert all("database" not in text for *_, text in answers), answers  # none of student1's code
    assert [a["id"] for a in own_attempts(page, "student2")] == [mine["id"]]
    # nor through student1's own server: the hub lets no one but student1 in
    reads = [("GET", f"/attempts/{theirs['id']}"), ("GET", f"/attempts/{theirs['id']}/turns")]
    for *_, status, text in lab_fetch(page, "/user/student1/cibench-lab/api", reads, body):
        assert status == 403 and "database" not in text, (status, text[:300])


def test_the_teachers_server_plays_no_students_attempt(room, played):
    """The teacher plays as a participant like any: their own attempts (none), no student's."""
    teacher = played["teacher"]
    base = f"{room.hub.url}/user/{INSTRUCTORS[0]}/cibench-lab/api"
    assert teacher.get(f"{base}/attempts", timeout=60).json() == []
    for user in STUDENTS:
        answer = teacher.get(f"{base}/attempts/{played[user][1]['id']}", timeout=60)
        assert answer.status_code == 403, answer.text


def test_a_students_server_runs_only_the_sandboxed_kernel(room, played):
    """Students' servers are proctored (the guide's config): no terminal, no other kernel."""
    page, _ = played["student2"]
    calls = [("POST", "/api/terminals"), ("POST", "/api/kernels")]
    answers = lab_fetch(page, "/user/student2", calls, {"name": "python3"})
    assert [status for *_, status, _ in answers] == [404, 403], answers


def test_a_students_sandboxed_kernel_cannot_reach_the_database(room, played):
    (outputs,) = rows(
        room.owner_url, f"SELECT outputs FROM turn WHERE attempt_id = '{played['student1'][1]['id']}'"
    )[0]
    printed = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "database unreachable:" in printed, outputs
    assert "url in kernel: False" in printed, outputs
    socket.create_connection(("127.0.0.1", room.pg.port), timeout=5).close()  # outside it, it is open


def _hub_api(hub_url: str, path: str, token: str) -> tuple[int, dict]:
    req = urllib.request.Request(f"{hub_url}/hub/api{path}", headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, {}


def test_a_servers_token_reads_its_own_users_groups_only(room, played):
    """What cibench-lab's roles read: the token the hub gave student1's server reads student1's
    groups (its scopes hold ``read:users:groups!user``, which the config grants to the server
    role; JupyterHub 6 also gives it to every token as part of identifying its owner), and no
    other user's."""
    token = psutil.Process(room.hub.server_pid("student1")).environ()["JUPYTERHUB_API_TOKEN"]
    code, me = _hub_api(room.hub.url, "/user", token)
    assert code == 200 and me["name"] == "student1"
    assert "read:users:groups!user=student1" in me["scopes"], me["scopes"]
    code, model = _hub_api(room.hub.url, "/users/student1", token)
    assert code == 200 and model["groups"] == ["cibench-class-demo"], (code, model)
    assert _hub_api(room.hub.url, "/users/student2", token)[0] in (403, 404)


def test_roles_and_classes_come_from_the_hubs_groups(room, played):
    """The teacher's server reads its user's groups (cibench-instructors, cibench-class-demo) and the
    class's participants (its members but the teacher) from the real hub; a student's is a
    participant of the class, and its token cannot read the class's members."""
    teacher = played["teacher"]
    base = f"{room.hub.url}/user/{INSTRUCTORS[0]}/cibench-lab/api"
    me = {"name": "teacher", "roles": ["participant", "instructor"], "classes": ["demo"]}
    assert teacher.get(f"{base}/me", timeout=60).json() == me
    members = sorted(STUDENTS)  # the group holds the teacher too: an instructor, none of its participants
    assert teacher.get(f"{base}/classes", timeout=60).json() == [{"name": "demo", "members": members}]
    page, _ = played["student2"]
    answers = lab_fetch(page, "/user/student2/cibench-lab/api", [("GET", "/me"), ("GET", "/classes")])
    (_, _, code, text), (_, _, refused, why) = answers
    assert code == 200 and json.loads(text) == {
        "name": "student2",
        "roles": ["participant"],
        "classes": ["demo"],
    }
    assert refused == 403 and "needs the instructor role" in why
    token = psutil.Process(room.hub.server_pid("student2")).environ()["JUPYTERHUB_API_TOKEN"]
    assert _hub_api(room.hub.url, "/groups/cibench-class-demo", token)[0] in (403, 404)
    assert _hub_api(room.hub.url, "/groups/cibench-instructors", token)[0] in (403, 404)
    # who teaches: the teacher's token reads the instructors group (a co-teacher is no participant)
    token = psutil.Process(room.hub.server_pid("teacher")).environ()["JUPYTERHUB_API_TOKEN"]
    code, group = _hub_api(room.hub.url, "/groups/cibench-instructors", token)
    assert code == 200 and group["users"] == INSTRUCTORS, (code, group)


def test_the_database_gives_the_teacher_the_class_and_a_student_their_own(room, played):
    """Row-level security: each server's own URL reads what its user may (docs/teach/reference.md)."""
    ids = {user: played[user][1]["id"] for user in STUDENTS}
    seen = {user: {a for (a,) in rows(room.urls[user], "SELECT id FROM attempt")} for user in USERS}
    assert seen["teacher"] == set(ids.values())
    assert seen["student1"] == {ids["student1"]} and seen["student2"] == {ids["student2"]}
    assert rows(room.urls["student2"], f"SELECT code FROM turn WHERE attempt_id = '{ids['student1']}'") == []


def test_the_teachers_class_view_shows_both_students(room, played):
    """The class view's routes on the real hub and the shared PostgreSQL: both students' attempts, a
    member's attempt with its turns' code; a student's server refuses the route."""
    teacher = played["teacher"]
    base = f"{room.hub.url}/user/{INSTRUCTORS[0]}/cibench-lab/api"
    progress = teacher.get(f"{base}/classes/demo/progress", timeout=60).json()
    by_student = {row["participant"]: row["attempt_id"] for row in progress["attempts"]}
    assert by_student == {user: played[user][1]["id"] for user in STUDENTS}, progress
    one = teacher.get(f"{base}/classes/demo/attempts/{by_student['student1']}", timeout=60).json()
    assert one["participant"] == "student1" and any(step["turns"] for step in one["steps"]), one
    csv_text = teacher.get(f"{base}/classes/demo/csv", timeout=60).json()["csv"]
    assert all(user in csv_text for user in STUDENTS)
    page, _ = played["student2"]
    calls = [("GET", "/classes/demo/progress")]
    ((*_, status, why),) = lab_fetch(page, "/user/student2/cibench-lab/api", calls)
    assert status == 403 and "needs the instructor role" in why


def test_the_lab_shows_no_news_prompt(room, played):
    """The hub's servers load the config's overrides: the lab's fetchNews default is "false" (the
    prompt shows only while it is "none"), and none shows on a page open since its first step."""
    page, _ = played["student1"]
    calls = [("GET", f"/lab/api/settings/{NOTIFICATION}")]
    ((*_, status, text),) = lab_fetch(page, "/user/student1", calls)
    assert status == 200, text
    properties = json.loads(text)["schema"]["properties"]
    assert (properties["fetchNews"]["default"], properties["checkForUpdates"]["default"]) == ("false", False)
    expect(page.get_by_text("official Jupyter news")).to_have_count(0)


def xsrf_header(session: requests.Session, user: str) -> dict[str, str]:
    """The X-XSRFToken a POST to ``user``'s server needs with the cookie its lab page set."""
    (token,) = [c.value for c in session.cookies if c.name == "_xsrf" and c.path.startswith(f"/user/{user}")]
    return {"X-XSRFToken": token}


def test_a_task_the_teacher_makes_is_played_on_a_running_students_server(room, played):
    """The teacher makes a task from a notebook in their home (POST tasks, through the proxy); it
    lands in the class's shared folder, and student1's server, running since before, lists it and
    starts an attempt of it. Last in this file: it adds an attempt to student1's."""
    teacher, name = played["teacher"], INSTRUCTORS[0]
    env = psutil.Process(room.hub.server_pid(name)).environ()
    assert env["CIBENCH_CLASS_DIR"] == str(room.dir)  # what the teacher's terminal has
    mean = ("Print the mean of `tip`, rounded to 2 decimals.", "print(round(df['tip'].mean(), 2))")
    write_solution(room.dir / "home" / name, [INTRO, LOAD, mean])
    made = teacher.post(
        f"{room.hub.url}/user/{name}/cibench-lab/api/tasks",
        json={"notebook": "bills_week.ipynb"},
        headers=xsrf_header(teacher, name),
        timeout=180,
    )
    assert made.status_code == 200, made.text
    body = made.json()
    assert (body["task_id"], body["written"], body["refusals"]) == (MADE, True, []), body
    # no server folder in the answer (issue 26): the class's task folder is outside the server root
    assert body["path"] == f"new_tasks_dir/{MADE}.ipynb"
    assert (room.dir / "tasks" / f"{MADE}.ipynb").is_file()

    page, _ = played["student1"]
    base = "/user/student1/cibench-lab/api"
    deadline = time.monotonic() + 30  # a server rescans at most every 3 s
    listed: list[str] = []
    while MADE not in listed and time.monotonic() < deadline:
        ((*_, status, text),) = lab_fetch(page, base, [("GET", "/tasks")])
        assert status == 200, text
        listed = [t["id"] for t in json.loads(text)]
        time.sleep(0 if MADE in listed else 1)
    assert MADE in listed and TASK_ID in listed, listed
    start = {"task_id": MADE, "mode": "e2e"}
    ((*_, status, text),) = lab_fetch(page, base, [("POST", "/attempts")], start)
    assert status == 201, text
    attempt = json.loads(text)
    assert (attempt["task_id"], attempt["status"], attempt["n_steps"]) == (MADE, "open", 2), attempt
    notebook = room.dir / "home" / "student1" / attempt["notebook_path"]
    assert notebook.is_file() and (notebook.parent / "data" / "bills.csv").is_file()
