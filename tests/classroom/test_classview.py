"""The class view: a class's progress table, its per-step pass rates and CSV, and one member's attempt
record, computed from a real SQLite store (the engine), then served to the class's instructor only
(the routes, on a real Jupyter server whose roles come from its settings)."""

from __future__ import annotations

import csv
import io

import pytest
from conftest import PROBE_ID, SECRET_CODE, SECRET_OUT, SECRET_THOUGHT, write_probe_task
from nbformat.v4 import new_output

from cibench_lab.auth.roles import RoleSettings
from cibench_lab.errors import NotFound
from cibench_lab.grading import TurnOutput
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Run, StepRow
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.views.classroom import CSV_COLUMNS, class_progress, member_attempt, progress_csv

pytestmark = pytest.mark.fast


def printed(text: str) -> list[dict]:
    return [new_output("stream", name="stdout", text=text + "\n")]


def play(attempts: Attempts, who: str, steps: list[tuple[str, list[dict], bool]]) -> str:
    """``who`` starts the probe task and plays ``steps`` (code, outputs, settle after it) in order."""
    task = attempts.library.get(PROBE_ID)
    aid = attempts.create(NewAttempt(task, "e2e", "human", who, PlaySettings(), {}))
    for index, (code, outputs, settle) in enumerate(steps):
        attempts.record_turn(aid, index, TurnOutput(code, outputs))
        if settle:
            attempts.settle(aid, index, "next")
    return aid


def seed(attempts: Attempts) -> dict[str, str]:
    """ada passes steps 1-2 and is on step 3; bob passes step 1, fails step 2 and is on step 3;
    eve (not in the class) passes step 1."""
    return {
        "ada": play(
            attempts,
            "ada",
            [
                ("probe = 'x'", [], True),
                (f"print('{SECRET_OUT} alpha beta')", printed(f"{SECRET_OUT} alpha beta"), True),
            ],
        ),
        "bob": play(attempts, "bob", [("probe = 'y'", [], True), ("print('nope')", printed("nope"), True)]),
        "eve": play(attempts, "eve", [("probe = 'z'", [], True)]),
    }


@pytest.fixture
def attempts(tmp_path) -> Attempts:
    write_probe_task(tmp_path)
    library = TaskLibrary.load([tmp_path])
    return Attempts(Store(f"sqlite:///{tmp_path / 'r.sqlite'}"), library, "cibench")


def test_progress_holds_the_members_attempts_and_where_the_class_is_stuck(attempts):
    ids = seed(attempts)
    view = class_progress(attempts, "stats", ["bob", "ada", "carl"])
    assert view["members"] == ["ada", "bob", "carl"]
    assert view["tasks"] == [{"task_id": PROBE_ID, "title": "Leak probe"}]
    rows = {r["participant"]: r for r in view["attempts"]}
    assert set(rows) == {"ada", "bob"}  # eve is not a member; carl attempted nothing
    assert rows["ada"]["attempt_id"] == ids["ada"]
    assert (rows["ada"]["status"], rows["ada"]["current_step"], rows["ada"]["n_steps"]) == ("open", 2, 4)
    # the score counts the settled steps, not all four: ada passed both she settled, bob one of two
    assert (rows["ada"]["passed"], rows["ada"]["settled"], rows["ada"]["score"]) == (2, 2, 100.0)
    assert (rows["bob"]["passed"], rows["bob"]["settled"], rows["bob"]["score"]) == (1, 2, 50.0)
    assert rows["ada"]["step_seconds"] is not None and rows["ada"]["step_seconds"] >= 0
    assert view["pass_rates"] == [  # step 3: both are still on it, which is no miss
        {"task_id": PROBE_ID, "step": 0, "reached": 2, "settled": 2, "passed": 2, "not_graded": 0},
        {"task_id": PROBE_ID, "step": 1, "reached": 2, "settled": 2, "passed": 1, "not_graded": 0},
        {"task_id": PROBE_ID, "step": 2, "reached": 2, "settled": 0, "passed": 0, "not_graded": 0},
    ]


def test_a_step_counts_in_its_pass_rate_once_settled_whoever_is_still_on_it(attempts):
    """Of three attempts at step 2, one passed it, one missed it and one is still on it: 1 of the
    2 who settled it passed; the one still working is neither a pass nor a miss."""
    seed(attempts)
    play(attempts, "carl", [("probe = 'w'", [], True), ("print('not yet')", printed("not yet"), False)])
    rates = class_progress(attempts, "stats", ["ada", "bob", "carl"])["pass_rates"]
    assert [(r["step"], r["reached"], r["settled"], r["passed"]) for r in rates] == [
        (0, 3, 3, 3),
        (1, 3, 2, 1),
        (2, 2, 0, 0),
    ]


def test_a_finished_attempt_counts_its_last_step_and_its_kept_score(attempts):
    aid = play(
        attempts,
        "ada",
        [
            ("probe = 'x'", [], True),
            ("print('alpha')", printed("alpha"), True),
            ("print(42)", printed("42"), True),
            ("print(17)", printed("17"), True),
        ],
    )
    view = class_progress(attempts, "stats", ["ada"])
    (row,) = view["attempts"]
    assert (row["attempt_id"], row["status"], row["current_step"], row["n_steps"]) == (aid, "done", 3, 4)
    assert (row["passed"], row["settled"], row["score"]) == (3, 4, 75.0)  # step 2 wanted the probe words
    assert row["step_seconds"] is None  # no step is open: the table shows a dash, the CSV a blank
    (line,) = csv.DictReader(io.StringIO(progress_csv(view)))
    assert (line["status"], line["step"], line["step_seconds"]) == ("done", "4/4", "")


def test_an_attempt_with_no_step_settled_has_no_score_yet(attempts):
    """Someone still on their first step has passed nothing and missed nothing: no score (the
    table says "none settled yet"), not 0."""
    play(attempts, "ada", [("probe = 'x'", [], False)])
    (row,) = class_progress(attempts, "stats", ["ada"])["attempts"]
    assert (row["passed"], row["settled"], row["not_graded"], row["score"]) == (0, 0, 0, None)
    (line,) = csv.DictReader(io.StringIO(progress_csv(class_progress(attempts, "stats", ["ada"]))))
    assert (line["passed"], line["settled"], line["score"]) == ("0", "0", "")


def test_the_csv_is_the_table_line_by_line(attempts):
    seed(attempts)
    view = class_progress(attempts, "stats", ["ada", "bob"])
    lines = list(csv.DictReader(io.StringIO(progress_csv(view))))
    assert tuple(lines[0]) == CSV_COLUMNS
    got = sorted(
        (r["participant"], r["title"], r["status"], r["step"], r["passed"], r["settled"], r["score"])
        for r in lines
    )
    assert got == [
        ("ada", "Leak probe", "open", "3/4", "2", "2", "100.0"),
        ("bob", "Leak probe", "open", "3/4", "1", "2", "50.0"),
    ]
    assert all(float(r["step_seconds"]) >= 0 for r in lines)


def test_a_members_attempt_shows_each_turns_code_output_and_grade_but_no_reference(attempts):
    ids = seed(attempts)
    with attempts.store.session() as s:  # ada's note on step 2
        s.query(StepRow).filter_by(attempt_id=ids["ada"], index=1).update({"note": "words, not numbers"})
    record = member_attempt(attempts, ids["ada"], ["ada", "bob"])
    assert (record["participant"], record["status"], record["n_steps"]) == ("ada", "open", 4)
    assert [s["index"] for s in record["steps"]] == [0, 1, 2]
    second = record["steps"][1]
    assert second["passed"] and second["grade"]["passed"] and second["note"] == "words, not numbers"
    (turn,) = second["turns"]
    assert turn["code"] == f"print('{SECRET_OUT} alpha beta')"
    assert turn["output"] == f"{SECRET_OUT} alpha beta\n" and turn["grade"]["passed"]
    assert record["steps"][2]["turns"] == [] and record["steps"][2]["settled_at"] is None
    text = repr(record)
    assert SECRET_CODE not in text and SECRET_THOUGHT not in text  # the reference is not shown


def test_an_attempt_outside_the_class_does_not_exist_for_its_instructor(attempts):
    ids = seed(attempts)
    with pytest.raises(NotFound, match="in this class"):
        member_attempt(attempts, ids["eve"], ["ada", "bob"])


def timeless(record: dict) -> dict:
    """A member's attempt record but its open step's working time, which runs between two reads."""
    return {**record, "steps": [{**step, "working_seconds": None} for step in record["steps"]]}


# ---- the routes, on a real server (its user "teach"; roles from its settings) ----


@pytest.fixture
def jp_server_config(jp_server_config):
    options = {
        "participant": "teach",
        "instructors": ["teach", "tina"],  # both teach stats: they belong to it
        "class_members": {"stats": ["ada", "bob", "teach", "tina"], "bio": ["dan", "teach"]},
    }
    return {**jp_server_config, "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **options}}


@pytest.fixture
def served(jp_serverapp) -> tuple[object, dict[str, str]]:
    services = jp_serverapp.web_app.settings["cibench_lab"]
    return services, seed(services.attempts)


async def test_the_instructor_reads_their_class(served, api):
    services, ids = served
    for teacher in ("teach", "tina"):  # the class's instructors play too: not as its participants
        ids[teacher] = play(services.attempts, teacher, [("probe = 'x'", [], True)])
    assert await api("GET", "classes") == (
        200,
        [{"name": "bio", "members": ["dan"]}, {"name": "stats", "members": ["ada", "bob"]}],
    )
    code, view = await api("GET", "classes/stats/progress")
    assert code == 200, view
    assert view["name"] == "stats" and view["members"] == ["ada", "bob"]
    assert {r["participant"] for r in view["attempts"]} == {"ada", "bob"}
    assert [r["reached"] for r in view["pass_rates"]] == [2, 2, 2]  # no teacher's attempt counted
    code, body = await api("GET", "classes/stats/csv")
    assert code == 200 and body["filename"] == "cibench-class-stats.csv"
    assert body["csv"].splitlines()[0] == ",".join(CSV_COLUMNS) and len(body["csv"].splitlines()) == 3
    assert "teach" not in body["csv"] and "tina" not in body["csv"]
    for teacher in ("teach", "tina"):
        code, _ = await api("GET", f"classes/stats/attempts/{ids[teacher]}")
        assert code == 404, teacher
    code, record = await api("GET", f"classes/stats/attempts/{ids['bob']}")
    assert code == 200 and record["steps"][1]["turns"][0]["code"] == "print('nope')"


async def test_the_alias_route_is_the_class_views_one_read_of_a_members_attempt(served, api):
    """``classes/attempts/{id}`` (Results()'s, across the classes taught) answers the class view's
    record of the attempt, and its turns each name their step; another class's does not exist."""
    _, ids = served
    code, record = await api("GET", f"classes/stats/attempts/{ids['ada']}")
    assert code == 200, record
    code, again = await api("GET", f"classes/attempts/{ids['ada']}")
    assert code == 200 and timeless(again) == timeless(record)
    code, turns = await api("GET", f"classes/attempts/{ids['ada']}/turns")
    assert code == 200 and turns == [t for step in record["steps"] for t in step["turns"]]
    assert [(t["step"], t["turn"]) for t in turns] == [(0, 0), (1, 0)]
    assert SECRET_CODE not in repr(record)  # the class view's record: no reference material
    for path in (f"classes/attempts/{ids['eve']}", f"classes/attempts/{ids['eve']}/turns"):
        code, err = await api("GET", path)
        assert (code, err["error"]) == (404, f"unknown attempt {ids['eve']!r} in this class"), path


async def test_the_class_list_holds_exactly_the_attempts_it_can_open(served, api):
    """``GET classes/attempts`` (Results()' list) and ``GET classes/attempts/{id}`` agree: a member's
    attempt of a headless run is not their work in the class (the class view leaves runs out too),
    so neither lists nor opens it."""
    services, ids = served
    task = services.attempts.library.get(PROBE_ID)
    run_attempt = services.attempts.create(NewAttempt(task, "e2e", "human", "ada", PlaySettings(), {}))
    with services.attempts.store.session() as s:
        run = Run(name="night", player="human", mode="e2e")
        s.add(run)
        s.flush()
        s.get(Attempt, run_attempt).run_id = run.id
    code, rows = await api("GET", "classes/attempts")
    assert code == 200 and sorted(r["id"] for r in rows) == sorted([ids["ada"], ids["bob"]]), rows
    for row in rows:
        assert (await api("GET", f"classes/attempts/{row['id']}"))[0] == 200
    code, err = await api("GET", f"classes/attempts/{run_attempt}")
    assert (code, err["error"]) == (404, f"unknown attempt {run_attempt!r} in this class")


async def test_another_classes_instructor_sees_nothing_of_it(served, api):
    services, ids = served
    code, err = await api("GET", "classes/nope/progress")
    assert (code, err["error"]) == (404, "no class 'nope' among the classes you teach")
    code, bio = await api("GET", "classes/bio/progress")
    assert code == 200 and bio["attempts"] == [] and bio["pass_rates"] == []
    for path in ("attempts/" + ids["ada"], "attempts/" + ids["eve"]):
        code, err = await api("GET", f"classes/bio/{path}")
        assert code == 404, (path, err)
    services.roles.settings = RoleSettings.of(["teach"], [], {"bio": ["teach", "dan"], "stats": ["ada"]})
    for path in ("progress", "csv", "attempts/" + ids["ada"]):
        code, err = await api("GET", f"classes/stats/{path}")
        assert (code, err["error"]) == (404, "no class 'stats' among the classes you teach"), path


async def test_a_participant_is_refused_every_class_route(served, api):
    services, ids = served
    services.roles.settings = RoleSettings.of([], [], {"stats": ["ada", "bob", "teach"]})
    for path in ("progress", "csv", "attempts/" + ids["ada"]):
        code, err = await api("GET", f"classes/stats/{path}")
        assert code == 403 and err["error"].endswith("needs the instructor role"), path
