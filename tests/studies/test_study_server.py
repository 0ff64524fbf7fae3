"""The study routes on an in-process server: consent and the questionnaire, what is recorded, who
sees which enrolment, participant codes on a shared machine, starting and quitting plan items."""

from __future__ import annotations

import subprocess

import pytest
from conftest import PROBE_ID
from sqlalchemy import select

from cibench_lab.auth.roles import RoleSettings
from cibench_lab.store.tables import Attempt, Enrolment, Event, Participant, Study
from cibench_lab.studies.definition import SETTLE_NOTE
from cibench_lab.studies.enrolment import enrol

PANDAS = "cibench_template/pandas/tips_ratio_by_group"
PARITY = {
    "title": "Parity pilot",
    "protocol": "model-parity",
    "consent": "We record your code and your time.",
    "questionnaire": [
        {
            "name": "expertise",
            "label": "Expertise",
            "type": "choice",
            "choices": ["low", "high"],
            "required": True,
        },
        {"name": "years", "label": "Years of Python", "type": "number", "min": 0},
    ],
    "tasks": [{"task": PROBE_ID}, {"task": PANDAS}],
}
PRACTICE = {
    "title": "Practice",
    "protocol": "practice",
    "consent": "Practice freely.",
    "draw": {"n": 2, "split": "cibench_template", "libs": ["pandas"]},
}
LAB_TOML = """
title = "Lab machine study"
protocol = "model-parity"
consent = "Enter the code on your card."
participant_code = true
tasks = [{ task = "cibench_template/pandas/leak_probe" }]
"""


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path, monkeypatch):
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    path = tmp_path / "lab-pilot.toml"
    path.write_text(LAB_TOML)
    lab = {
        **jp_server_config["CIBenchLabApp"],
        "studies": {"parity": PARITY, "practice": PRACTICE},
        "study_files": [str(path)],
        "researchers": ["the-researcher"],
        "show_grades": True,  # the server's own defaults, which a study's attempts do not take
        "turn_cap": 0,
    }
    return {**jp_server_config, "CIBenchLabApp": lab}


@pytest.fixture
def services(jp_serverapp):
    return jp_serverapp.web_app.settings["cibench_lab"]


def consent(api, study: str, **body):
    return api("POST", f"studies/{study}/consent", {"accept": True, **body})


@pytest.mark.fast
async def test_the_study_list_and_a_study_before_consent(api, services):
    code, rows = await api("GET", "studies")
    assert code == 200
    assert {r["id"]: (r["state"], r["n_items"], r["participant_code"]) for r in rows} == {
        "lab-pilot": ("consent", 1, True),
        "parity": ("consent", 2, False),
        "practice": ("consent", 2, False),
    }
    code, view = await api("GET", "studies/parity")
    assert code == 200 and view["state"] == "consent" and view["items"] == [] and view["enrolment"] is None
    assert view["consent"] == f"{PARITY['consent']}\n\n{SETTLE_NOTE}" and view["settle_note"] == SETTLE_NOTE
    assert view["participant"] == services.participant and not view["researcher"]
    assert view["settings"] == {
        "show_grades": False,
        "turn_cap": 3,
        "pause_after": 300,
        "reveal": "never",
        "max_turn": 3,
        "grade_rule": "settling",
    }
    assert [q["name"] for q in view["questionnaire"]] == ["expertise", "years"]
    code, err = await api("GET", "studies/nope")
    assert code == 404 and "unknown study 'nope'" in err["error"]


@pytest.mark.fast
async def test_consent_checks_the_answers_and_records_the_enrolment(api, services):
    code, err = await api("POST", "studies/parity/consent", {"accept": False})
    assert code == 400 and "accept: the consent must be accepted" in err["error"]
    code, err = await consent(api, "parity", answers={"years": "five"})
    assert code == 400 and err["error"] == "answers.expertise: required; answers.years: must be a number"
    with services.store.session() as s:
        assert s.scalars(select(Enrolment)).all() == []  # nothing recorded for a refused consent
    code, view = await consent(api, "parity", answers={"expertise": "high", "years": 4})
    assert code == 200 and view["state"] == "ready" and view["next"] == 0 and view["current"] is None
    assert [(i["task_id"], i["status"], i["attempt_id"]) for i in view["items"]] == [
        (PROBE_ID, "todo", None),
        (PANDAS, "todo", None),
    ]
    assert view["enrolment"]["answers"] == {"expertise": "high", "years": 4}
    code, again = await consent(api, "parity", answers={"expertise": "low"})
    assert code == 200 and again["enrolment"] == view["enrolment"]  # the first consent stays
    with services.store.session() as s:
        study = s.get(Study, "parity")
        assert (
            study is not None and len(study.salt) == 64 and study.config["consent_shown"] == view["consent"]
        )
        (row,) = s.scalars(select(Enrolment)).all()
        assert row.seed is None and row.plan == [
            {"task_id": PROBE_ID, "mode": "e2e"},
            {"task_id": PANDAS, "mode": "e2e"},
        ]


@pytest.mark.fast
async def test_a_refused_consent_names_every_field_at_once(api, services):
    """The form shows each field's error beside it: one answer names them all, in the form's order."""
    code, err = await api("POST", "studies/parity/consent", {"accept": False, "answers": {"years": -1}})
    assert code == 400 and err["error"] == (
        "answers.expertise: required; answers.years: must be ≥ 0; "
        "accept: the consent must be accepted to take part"
    )
    code, err = await api("POST", "studies/lab-pilot/consent", {"accept": False, "code": "no spaces"})
    assert code == 400 and err["error"].startswith("code: 1-64 letters")
    assert err["error"].endswith("; accept: the consent must be accepted to take part")
    with services.store.session() as s:
        assert s.scalars(select(Enrolment)).all() == []


@pytest.mark.fast
async def test_a_drawn_plan_records_its_seed(api, services):
    code, view = await consent(api, "practice")
    assert code == 200 and len(view["items"]) == 2
    assert {i["task_id"].split("/")[1] for i in view["items"]} == {"pandas"}
    with services.store.session() as s:
        (row,) = s.scalars(select(Enrolment).where(Enrolment.study_id == "practice")).all()
        assert isinstance(row.seed, int) and [p["task_id"] for p in row.plan] == [
            i["task_id"] for i in view["items"]
        ]


@pytest.mark.fast
async def test_a_participant_sees_only_their_own_enrolment(api, services):
    a = services.attempts
    enrol(a.store, a.library, services.studies.study("parity"), "someone-else", {"expertise": "low"})
    code, view = await api("GET", "studies/parity")
    assert code == 200 and view["state"] == "consent" and view["enrolment"] is None
    code, err = await api("POST", "studies/parity/start", {})
    assert code == 409 and "has not consented" in err["error"]
    code, err = await api("GET", "studies/parity/participants")
    assert code == 403 and err["error"] == "GET /studies/{study_id}/participants needs the researcher role"
    researchers = ["the-researcher", services.participant]  # this server's user is a researcher now
    services.roles.settings = RoleSettings.of([], researchers, {})
    assert (await api("GET", "studies/parity/participants"))[0] == 403  # a shared seat: codes
    services.studies.seat.shared = False  # as on a server without codes (tests/security/test_seat.py: with)
    await consent(api, "parity", answers={"expertise": "high"})
    code, records = await api("GET", "studies/parity/participants")
    assert code == 200 and [r["participant"] for r in records] == ["someone-else", services.participant]
    assert records[0]["answers"] == {"expertise": "low"} and len(records[0]["items"]) == 2


@pytest.mark.fast
async def test_participant_codes_sign_in_and_hand_over(api, services):
    code, view = await api("GET", "studies/lab-pilot")
    assert view["participant"] is None and view["participant_code"] and view["state"] == "consent"
    code, err = await api("POST", "studies/lab-pilot/start", {})
    assert code == 409 and "participant code" in err["error"]
    code, err = await consent(api, "lab-pilot")
    assert code == 400 and err["error"].startswith("code: ")
    code, err = await consent(api, "lab-pilot", code="no spaces")
    assert code == 400 and err["error"].startswith("code: ")
    code, view = await consent(api, "lab-pilot", code="P01")
    assert code == 200 and view["participant"] == "P01" and view["state"] == "ready"
    code, err = await consent(api, "lab-pilot", code="P02")
    assert code == 409 and "participant P01 is signed in" in err["error"]
    code, other = await api("GET", "studies/parity")  # every route acts for the code now
    assert other["participant"] == "P01"
    consented = view["enrolment"]["consent_at"]
    code, view = await api("POST", "studies/lab-pilot/handover", {})
    assert code == 200 and view["participant"] is None and view["enrolment"] is None
    code, view = await consent(api, "lab-pilot", code="P01")  # P01 comes back: signed in, consent kept
    assert code == 200 and view["enrolment"]["consent_at"] == consented
    code, err = await api("POST", "studies/parity/handover", {})
    assert code == 400 and "does not sign participants in with codes" in err["error"]
    code, err = await api("POST", "studies/lab-pilot/quit", {})
    assert code == 409 and "no task of the study is in progress" in err["error"]
    with services.store.session() as s:
        names = set(s.scalars(select(Participant.name)))
    assert "P01" in names and "P02" not in names


@pytest.mark.fast
async def test_a_code_signed_in_has_no_role_of_the_servers_user(api, services):
    """The server's user is a researcher; the participant a code signs in in their place is not."""
    me = services.participant
    services.roles.settings = RoleSettings.of([me], [me], {})
    assert (await api("GET", "me"))[1]["roles"] == ["participant"]  # a shared seat
    services.studies.seat.shared = False  # as on a server whose studies have no codes
    assert (await api("GET", "me"))[1]["roles"] == ["participant", "instructor", "researcher"]
    await consent(api, "lab-pilot", code="P05")
    assert await api("GET", "me") == (200, {"name": "P05", "roles": ["participant"], "classes": []})
    for path in ("studies/parity/participants", "classes"):
        code, err = await api("GET", path)
        assert code == 403 and "role" in err["error"], path
    assert (await api("GET", "studies/lab-pilot"))[1]["researcher"] is False
    await api("POST", "studies/lab-pilot/handover", {})
    assert (await api("GET", "studies/parity/participants"))[0] == 200


async def test_start_locks_the_preset_and_quit_ends_the_plan_item(api, services):
    await consent(api, "lab-pilot", code="P07")
    code, started = await api("POST", "studies/lab-pilot/start", {})
    assert code == 201, started
    attempt, view = started["attempt"], started["study"]
    assert attempt["settings"]["show_grades"] is False and attempt["settings"]["turn_cap"] == 3
    assert attempt["settings"]["grade_rule"] == "settling" and attempt["player"] == "human"
    assert (
        view["state"] == "playing"
        and view["current"] == 0
        and view["items"][0]["attempt_id"] == attempt["id"]
    )
    assert view["items"][0]["status"] == "open" and view["items"][0]["working_seconds"] is not None
    code, err = await api("POST", "studies/lab-pilot/start", {})
    assert code == 409 and "task 1 of the study is in progress" in err["error"]
    code, mine = await api("GET", f"attempts/{attempt['id']}")
    assert code == 200 and mine["status"] == "open"
    code, view = await api("POST", "studies/lab-pilot/quit", {})
    assert code == 200 and view["state"] == "finished" and view["items"][0]["status"] == "quit"
    assert view["enrolment"]["finished_at"] is not None and view["done"] == 1
    code, quit_view = await api("GET", f"attempts/{attempt['id']}")
    assert code == 200 and quit_view["status"] == "quit"
    with services.store.session() as s:
        row = s.get(Attempt, attempt["id"])
        assert row is not None and (row.study_id, row.protocol, row.status) == (
            "lab-pilot",
            "model-parity",
            "quit",
        )
        assert row.finished_at is not None
        owner = s.get(Participant, row.participant_id)
        assert owner is not None and owner.name == "P07"
        kinds = [(e.kind, e.detail) for e in s.scalars(select(Event).where(Event.attempt_id == row.id))]
        assert ("quit", {"step": 0}) in kinds
    await api("POST", "studies/lab-pilot/handover", {})
    code, err = await api("GET", f"attempts/{attempt['id']}")  # the next person cannot read P07's attempt
    assert code == 403, err
    code, err = await api("POST", "studies/lab-pilot/start", {})
    assert code == 409


@pytest.mark.parametrize(
    "options,says",
    [
        (
            {"studies": {"exam": {**PARITY, "tasks": [{"task": PROBE_ID}], "proctored": True}}},
            "study 'exam' requires the proctored preset: start the server with CIBenchLabApp.proctored=True",
        ),
        (
            {"studies": {"bad": {**PARITY, "tasks": [{"task": "x/y/z"}]}}},
            "CIBenchLabApp.studies[bad]: tasks[0].task",
        ),
    ],
)
def test_the_server_refuses_a_study_it_cannot_hold_in_one_line(tmp_path, options, says):
    from test_faults import CHILD_TIMEOUT, a_database, a_task, env_for, free_port, refusal, server_argv

    root = tmp_path / "root"
    root.mkdir()
    tasks = str(a_task(tmp_path))
    argv = server_argv(
        tmp_path, root, free_port(), database_url=a_database(tmp_path), task_dirs=[tasks], **options
    )
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env_for(tmp_path))
    assert refusal(proc).startswith(says), proc.stderr[-2000:]


@pytest.mark.fast
async def test_a_study_task_is_not_played_outside_the_study_while_pending(api, services):
    """Free play of a plan task before its study attempt would spoil the study's first attempt."""
    enrol(services.store, services.library, services.studies.study("parity"), "someone-else", {})
    watch = {"task_id": PANDAS, "mode": "e2e", "player": {"model": "no-such-model"}}
    code, err = await api("POST", "attempts", watch)  # not enrolled: past the study check
    assert code == 400 and "no-such-model" in err["error"], err
    await consent(api, "parity", answers={"expertise": "high"})
    for body in ({"task_id": PANDAS, "mode": "oracle"}, watch):  # any mode, any player
        code, err = await api("POST", "attempts", body)
        assert code == 409 and err["error"].startswith(
            "this task is part of study 'Parity pilot' (parity); play it from the study"
        ), err
    with services.store.session() as s:
        assert s.scalars(select(Attempt)).all() == []


async def test_a_quit_attempt_keeps_its_grades_and_takes_no_kernel(api, services, jp_serverapp):
    from conftest import Browser

    await consent(api, "lab-pilot", code="P08")
    code, started = await api("POST", "studies/lab-pilot/start", {})
    assert code == 201, started
    attempt = started["attempt"]
    aid = attempt["id"]
    code, err = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})  # in progress
    assert code == 409 and "part of study 'Lab machine study' (lab-pilot)" in err["error"]
    b = Browser(jp_serverapp, api, attempt)
    try:
        code, r = await b.turn(0, "probe = 'q' * 17")
        assert code == 200 and r["grade"] is None  # model parity: no grade while the task is on
        await b.next(0)
        code, r = await b.turn(1, "print('alpha')")
        assert code == 200, r
        code, study = await api("POST", "studies/lab-pilot/quit", {})
        assert code == 200 and (study["done"], study["finished"], study["quit"]) == (1, 0, 1)
        code, view = await api("GET", f"attempts/{aid}")
        first, quit_step = view["steps"]
        assert view["status"] == "quit" and first["grade"]["passed"] and first["grades"]["fair"]["passed"]
        assert not quit_step["settled"] and quit_step["grade"] is None and quit_step["grades"] is None
        assert view["summary"] is None
        code, err = await b.next(1)  # its kernel stops once idle: nothing more is played
        assert code == 409 and err["error"] == f"attempt {aid} is quit", err
        code, err = await api("POST", f"attempts/{aid}/kernel", {"kernel_id": b.kernel_id})
        assert code == 409 and err["error"] == (
            f"attempt {aid} is quit: its notebook is read only and no kernel can be bound to it"
        )
    finally:
        b.close()
    code, rows = await api("GET", "studies")
    assert {r["id"]: (r["finished"], r["quit"]) for r in rows}["lab-pilot"] == (0, 1)
    code, free = await api("POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e"})  # ended: free again
    assert code == 201, free
    with services.store.session() as s:
        row = s.get(Attempt, free["id"])
        assert row is not None and row.study_id is None and row.protocol is None
