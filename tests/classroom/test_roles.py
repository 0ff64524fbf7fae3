"""Roles: from the server's settings, from JupyterHub's groups (read through the hub's REST API by the
real client, here against a small HTTP server that answers as the hub's API does — the hub test
exercises the real hub), and the routes that say who the caller is and what they teach."""

from __future__ import annotations

import copy
import logging
import socket

import pytest
from hubapi import TOKEN, hub_api

from cibench_lab.auth.hub import Hub
from cibench_lab.auth.roles import Roles, RoleSettings, identity
from cibench_lab.errors import BadInput

pytestmark = pytest.mark.fast

USERS = {
    "ada": ["cibench-class-stats"],
    "teach": ["cibench-instructors", "cibench-class-stats"],
    "res": ["cibench-researchers"],
}
GROUPS = {"cibench-class-stats": ["ada", "teach", "bob", "tina"], "cibench-instructors": ["teach", "tina"]}


@pytest.fixture
def hub(jp_asyncio_loop):
    with hub_api(jp_asyncio_loop, copy.deepcopy(USERS), copy.deepcopy(GROUPS)) as state:
        yield state


def test_settings_give_roles_and_classes():
    settings = RoleSettings.of(["teach"], ["res"], {"stats": ["ada", "teach"], "bio": ["bob"]})
    assert identity("ada", settings).as_dict() == {
        "name": "ada",
        "roles": ["participant"],
        "classes": ["stats"],
    }
    teach = identity("teach", settings)
    assert teach.roles == ("participant", "instructor") and teach.taught == ("stats",)
    assert identity("res", settings).roles == ("participant", "researcher")
    assert identity("ada", settings).taught == ()  # a member, not an instructor


def test_groups_join_the_settings():
    settings = RoleSettings.of([], [], {"bio": ["ada"]})
    groups = ["cibench-instructors", "cibench-researchers", "cibench-class-stats", "cibench-class-", "other"]
    me = identity("ada", settings, groups)
    assert me.roles == ("participant", "instructor", "researcher")
    assert me.classes == ("bio", "stats")


def test_a_malformed_class_setting_names_the_trait():
    with pytest.raises(BadInput, match=r"CIBenchLabApp.class_members: a class name is .* 'no way'"):
        RoleSettings.of([], [], {"no way": ["ada"]})
    with pytest.raises(BadInput, match=r"CIBenchLabApp.class_members\['stats'\]: a list of user names"):
        RoleSettings.of([], [], {"stats": "ada"})


async def test_the_hub_gives_groups_and_members(hub):
    roles = Roles(RoleSettings.of([], [], {"stats": ["carl"]}), Hub(hub["url"], TOKEN))
    teach = await roles.of("teach")
    assert teach.roles == ("participant", "instructor") and teach.classes == ("stats",)
    # the class's instructors (teach, and tina of the hub's instructors group) are not its participants
    assert await roles.members("stats") == ["ada", "bob", "carl", "teach", "tina"]
    assert await roles.classes(teach) == {"stats": ["ada", "bob", "carl"]}
    assert await roles.readable(teach) == {"ada", "bob", "carl"}
    ada = await roles.of("ada")
    assert ada.classes == ("stats",) and await roles.readable(ada) == set()  # teaches none
    assert (await roles.of("res")).roles == ("participant", "researcher")
    assert await roles.members("nothing") == []  # no such group: 404, no members


async def test_a_classs_participants_leave_out_its_instructors_from_the_settings_too():
    """Every member with the instructor role teaches the class: the caller, and the others the
    settings name (a class's participants are the ones its view lists)."""
    settings = RoleSettings.of(["teach", "tina"], [], {"stats": ["ada", "teach", "tina", "bob"]})
    roles = Roles(settings)
    teach = await roles.of("teach")
    assert await roles.classes(teach) == {"stats": ["ada", "bob"]}
    assert await roles.readable(teach) == {"ada", "bob"}  # not the teacher's own attempts either


async def test_a_hub_refusing_the_instructors_group_leaves_out_the_caller_and_names_the_scope(hub, caplog):
    hub["refuse"] = {"groups/cibench-instructors"}
    roles = Roles(RoleSettings(), Hub(hub["url"], TOKEN))
    with caplog.at_level(logging.WARNING):
        teach = await roles.of("teach")
        assert await roles.classes(teach) == {"stats": ["ada", "bob", "tina"]}
    assert "groups/cibench-instructors: the hub refused it (403): grant read:groups!group=" in caplog.text


async def test_answers_are_kept_for_the_ttl(hub):
    keeping = Hub(hub["url"], TOKEN, ttl=3600)
    for _ in range(3):
        assert await keeping.groups_of("ada") == ["cibench-class-stats"]
    assert hub["asked"] == ["users/ada"]
    asking = Hub(hub["url"], TOKEN, ttl=0)
    hub["users"]["ada"] = []
    assert await asking.groups_of("ada") == []
    assert hub["asked"] == ["users/ada", "users/ada"]


async def test_a_refusing_hub_leaves_the_settings_roles_and_names_the_scope(hub, caplog):
    hub["refuse"] = {"users", "groups"}
    roles = Roles(RoleSettings.of(["teach"], [], {"stats": ["teach", "carl"]}), Hub(hub["url"], TOKEN))
    with caplog.at_level(logging.WARNING):
        teach = await roles.of("teach")
        assert await roles.classes(teach) == {"stats": ["carl"]}
    assert teach.roles == ("participant", "instructor")
    text = caplog.text
    assert "users/teach: the hub refused it (403): grant read:users:groups!user" in text
    assert "groups/cibench-class-stats: the hub refused it (403): grant read:groups!group=" in text
    assert TOKEN not in text


async def test_a_hub_that_does_not_answer_leaves_the_settings_roles(caplog):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    roles = Roles(RoleSettings.of([], ["res"], {}), Hub(f"http://127.0.0.1:{port}/hub/api", TOKEN, timeout=2))
    with caplog.at_level(logging.WARNING):
        me = await roles.of("res")
    assert me.roles == ("participant", "researcher")
    assert "roles from the server's settings only" in caplog.text and "did not answer" in caplog.text


def test_outside_a_hub_there_is_no_hub_client():
    assert Hub.from_env({}) is None
    assert Hub.from_env({"JUPYTERHUB_API_URL": "http://h/hub/api"}) is None
    assert Hub.from_env({"JUPYTERHUB_API_URL": "http://h/hub/api", "JUPYTERHUB_API_TOKEN": "t"}) is not None


@pytest.fixture
def jp_server_config(jp_server_config, hub, monkeypatch):
    """The server of user ``teach`` under the hub stand-in, groups read afresh on every request."""
    monkeypatch.setenv("JUPYTERHUB_API_URL", hub["url"])
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", TOKEN)
    options = {
        "participant": "teach",
        "class_members": {"stats": ["carl"], "bio": ["dan"]},
        "hub_groups_ttl": 0,
    }
    return {**jp_server_config, "CIBenchLabApp": {**jp_server_config["CIBenchLabApp"], **options}}


async def test_me_and_classes_from_the_hub_and_the_settings(jp_serverapp, api, hub):
    assert await api("GET", "me") == (
        200,
        {"name": "teach", "roles": ["participant", "instructor"], "classes": ["stats"]},
    )
    assert await api("GET", "classes") == (
        200,
        [{"name": "stats", "members": ["ada", "bob", "carl"]}],  # not its instructors teach and tina
    )
    hub["groups"]["cibench-class-stats"].append("eve")  # the hub's word, read again (ttl 0)
    hub["users"]["teach"].append("cibench-class-bio")
    code, classes = await api("GET", "classes")
    assert code == 200 and classes == [
        {"name": "bio", "members": ["dan"]},
        {"name": "stats", "members": ["ada", "bob", "carl", "eve"]},
    ]


async def test_out_of_the_instructors_group_the_class_route_refuses(jp_serverapp, api, hub):
    hub["users"]["teach"].remove("cibench-instructors")
    code, err = await api("GET", "classes")
    assert (code, err["status"]) == (403, 403)
    assert err["error"] == "GET /classes needs the instructor role"
    assert await api("GET", "me") == (200, {"name": "teach", "roles": ["participant"], "classes": ["stats"]})


async def test_a_hub_refusing_the_scope_is_no_error(jp_serverapp, api, hub):
    hub["refuse"] = {"users", "groups"}
    assert await api("GET", "me") == (200, {"name": "teach", "roles": ["participant"], "classes": []})
    code, err = await api("GET", "classes")
    assert code == 403 and "needs the instructor role" in err["error"]
