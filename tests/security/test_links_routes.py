"""Our own routes never follow a link in an attempt folder: ``POST tasks`` (its notebook and its data
folder), a player's transcript and a kernel's path. The links lead into another attempt's folder, inside
the server root (a link out of the root is refused as outside it anyway); a hard link is another name of
that attempt's file. The test process makes them, as an attempt folder from before seccomp holds them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import PROBE_ID, server_config
from newtask import LOAD, write_solution

from cibench_lab.kernels.spec import KERNEL_NAME

pytestmark = pytest.mark.fast

ATTEMPTS = "cibench-attempts"
MINE = f"{ATTEMPTS}/probe-0123abcd"


@pytest.fixture
def jp_server_config(tmp_path, task_root):
    from cibench_lab.tasks.library import builtin_dir

    teacher = {"participant": "teach", "instructors": ["teach"]}  # POST tasks is an instructor's
    made = str(tmp_path / "made")
    return server_config(tmp_path, [builtin_dir(), task_root], new_tasks_dir=made, **teacher)


@pytest.fixture
def links(jp_root_dir: Path) -> Path:
    """Another attempt's solution notebook, data and transcript; links to them in my attempt folder."""
    other = jp_root_dir / ATTEMPTS / "other-4567cdef"
    write_solution(other, [LOAD, "an instruction with no code after it"])
    (other / "t.jsonl").write_text('{"task": "x"}\n')
    mine = jp_root_dir / MINE
    mine.mkdir(parents=True)
    os.symlink(other / "bills_week.ipynb", mine / "nb.ipynb")
    os.symlink(other, mine / "through")
    os.symlink(other / "t.jsonl", mine / "t.jsonl")
    os.link(other / "bills_week.ipynb", mine / "hard.ipynb")
    os.link(other / "t.jsonl", mine / "hard.jsonl")
    write_solution(jp_root_dir / "teacher", [LOAD, "an instruction with no code after it"])
    return mine


def refused(code: int, body: dict) -> None:
    assert code in (400, 403), (code, body)
    assert "link" in body["error"] and "\n" not in body["error"], body


async def test_post_tasks_follows_no_link(api, links):
    for notebook in ("nb.ipynb", "through/bills_week.ipynb", "hard.ipynb"):
        refused(*await api("POST", "tasks", {"notebook": f"{MINE}/{notebook}", "check": True}))
    data = {"notebook": "teacher/bills_week.ipynb", "data": f"{MINE}/through/data", "check": True}
    refused(*await api("POST", "tasks", data))


async def test_a_players_transcript_follows_no_link(api, links):
    for transcript in ("t.jsonl", "through/t.jsonl", "hard.jsonl"):
        choice = {"task_id": PROBE_ID, "mode": "e2e", "player": {"transcript": f"{MINE}/{transcript}"}}
        refused(*await api("POST", "attempts", choice))


async def test_a_kernels_path_through_a_link_is_refused(jp_fetch, jp_serverapp, links):
    """``POST /api/kernels {"path"}`` starts a kernel in the folder its path names, and ``PATCH
    /api/sessions {"path"}`` moves a session there: through a link in an attempt folder (to another
    attempt, or out of the attempts folder) both are refused in one line; no kernel starts."""
    os.symlink("/", links / "root")
    km = jp_serverapp.kernel_manager
    for path in (f"{MINE}/through", f"{MINE}/through/data", f"{MINE}/root/etc"):
        body = json.dumps({"name": KERNEL_NAME, "path": path})
        resp = await jp_fetch("api", "kernels", method="POST", body=body, raise_error=False)
        refused_line(resp, path)
    assert km.list_kernel_ids() == []
    nb = {
        "path": f"{MINE}/mine.ipynb",
        "type": "notebook",
        "name": "mine.ipynb",
        "kernel": {"name": KERNEL_NAME},
    }
    resp = await jp_fetch("api", "sessions", method="POST", body=json.dumps(nb), raise_error=False)
    assert resp.code == 201, resp.body
    session = json.loads(resp.body)
    try:
        for path in (f"{MINE}/through/x.ipynb", f"{MINE}/root/x.ipynb"):
            body = json.dumps({"path": path})
            resp = await jp_fetch(
                "api", "sessions", session["id"], method="PATCH", body=body, raise_error=False
            )
            refused_line(resp, path)
        resp = await jp_fetch("api", "sessions", session["id"], raise_error=False)
        assert json.loads(resp.body)["path"] == f"{MINE}/mine.ipynb"
    finally:
        await jp_fetch("api", "sessions", session["id"], method="DELETE", raise_error=False)


def refused_line(resp, path: str) -> None:
    assert resp.code == 403, (path, resp.code, resp.body)
    message = json.loads(resp.body)["message"]
    assert "link" in message and "\n" not in message and not message.startswith("/"), message
