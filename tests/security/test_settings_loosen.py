"""Settings that only widen with the server's leave: on a class server (turn_cap=2, reveal=never,
grades hidden, the settling rule) a person's lab settings sent with Start may tighten the play
settings, never loosen them — without ``lock_settings``."""

from __future__ import annotations

import pytest
from conftest import server_config

from cibench_lab.errors import BadInput
from cibench_lab.play.settings import PlaySettings, attempt_settings

SERVER = PlaySettings(show_grades=False, turn_cap=2, reveal="never", grade_rule="settling")
LOOSE = {"turn_cap": 50, "reveal": "after-step", "show_grades": True, "grade_rule": "best"}


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    return server_config(
        tmp_path,
        [task_root],
        turn_timeout=60.0,
        class_members={"stats": ["ada", "bob"]},
        turn_cap=2,
        reveal="never",
        show_grades=False,
        grade_rule="settling",
    )


async def test_a_persons_looser_settings_do_not_lift_the_class_servers(start_attempt, api):
    b = await start_attempt(**LOOSE)
    assert b.attempt["settings"] == SERVER.as_dict()
    code, r = await b.turn(0, "probe = 'wrong'")
    assert code == 200 and r["grade"] is None and r["settled"] is None
    code, r = await b.turn(0, "probe = 'still wrong'")
    assert code == 200 and r["settled"]["outcome"] == "turn_cap", r  # two runs, not fifty
    assert r["attempt"]["current_step"] == 1
    assert "reference" not in r["attempt"]["steps"][0]  # reveal=never holds
    code, view = await api("GET", f"attempts/{b.attempt['id']}")
    assert "LEAKPROBE" not in str(view)
    # a tighter setting is honoured
    tight = await start_attempt(turn_cap=1, pause_after=60)
    assert tight.attempt["settings"]["turn_cap"] == 1 and tight.attempt["settings"]["pause_after"] == 60
    code, r = await tight.turn(0, "probe = 'wrong'")
    assert r["settled"]["outcome"] == "turn_cap"


@pytest.mark.fast
@pytest.mark.parametrize(
    ("server", "person", "kept"),
    [
        ({"turn_cap": 2}, {"turn_cap": 50}, {"turn_cap": 2}),
        ({"turn_cap": 2}, {"turn_cap": 0}, {"turn_cap": 2}),  # 0, no cap, is the loosest
        ({"turn_cap": 2}, {"turn_cap": 1}, {"turn_cap": 1}),
        ({"turn_cap": 0}, {"turn_cap": 5}, {"turn_cap": 5}),
        ({"reveal": "never"}, {"reveal": "after-step"}, {"reveal": "never"}),
        ({"reveal": "never"}, {"reveal": "after-task"}, {"reveal": "never"}),
        ({"reveal": "after-task"}, {"reveal": "after-step"}, {"reveal": "after-task"}),
        ({"reveal": "after-task"}, {"reveal": "never"}, {"reveal": "never"}),
        ({"reveal": "after-step"}, {"reveal": "after-task"}, {"reveal": "after-task"}),
        ({"show_grades": False}, {"show_grades": True}, {"show_grades": False}),
        ({"show_grades": True}, {"show_grades": False}, {"show_grades": False}),
        ({"grade_rule": "settling"}, {"grade_rule": "best"}, {"grade_rule": "settling"}),
        ({"grade_rule": "best"}, {"grade_rule": "settling"}, {"grade_rule": "settling"}),
        ({"pause_after": 300}, {"pause_after": 30}, {"pause_after": 30}),  # not a play rule: free
    ],
)
def test_a_guarded_server_keeps_the_tighter_of_each_setting(server, person, kept):
    base = PlaySettings(**server)
    got = attempt_settings(base, person, person=True, policy="tighten")
    assert {k: getattr(got, k) for k in kept} == kept
    free = attempt_settings(base, person, person=True, policy="free")  # an unguarded server: the person's
    assert {k: getattr(free, k) for k in person} == person


@pytest.mark.fast
def test_a_guarded_server_still_refuses_an_ill_typed_setting():
    with pytest.raises(BadInput, match=r"settings.turn_cap"):
        attempt_settings(SERVER, {"turn_cap": -1}, person=True, policy="tighten")
    with pytest.raises(BadInput, match=r"settings.reveal"):
        attempt_settings(SERVER, {"reveal": "sometimes"}, person=True, policy="tighten")


@pytest.mark.fast
async def test_the_class_server_says_it_guards_its_settings(api):
    """The lab reads it (GET settings: ``guarded``) to count the turn cap a person will get."""
    code, settings = await api("GET", "settings")
    assert code == 200 and settings["guarded"] is True and settings["locked"] is False
    assert settings["defaults"]["turn_cap"] == 2 and settings["defaults"]["reveal"] == "never"
