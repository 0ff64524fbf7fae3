"""``Results()`` for the researcher of a proctored study. A proctored server runs only the sandboxed
task kernel, which cannot import cibench_lab (the task kernels' own environment) and has no network
and no token; so the researcher runs the widget in a kernel of their own, outside that server, and
points it at the server's REST API (``url=``, ``token=``, the researcher key for the shared seat).
There it browses the study's participants and opens one's attempt. A real proctored `jupyter
server` with a study of participant codes, and a real Python kernel that knows nothing of it."""

from __future__ import annotations

import hashlib
import os

from conftest import server_config
from jupyter_client import KernelManager
from rules_task import EN, attempts_for, printed
from test_widgets import HERE, TOKEN, Server, _run

from cibench_lab.play.attempt import NewAttempt, StudyAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.widgets import where

KEY = "the-researchers-own-long-random-key-0123456789"
STUDY = {
    "title": "Pilot",
    "protocol": "model-parity",
    "consent": "Enter the code on your card.",
    "participant_code": True,
    "proctored": True,
    "tasks": [{"task": EN}],
}

PROBE = """
import json
from cibench_lab.widgets import Results
seat = Results(url=URL, token=TOKEN, researcher_key="")  # the shared seat, without the key
out = {"seat_sources": [key for _, key in seat.source.options]}
seat.list_source("study")
out["seat_refused"] = seat.error
r = Results(url=URL, token=TOKEN)  # the key from CIBENCH_LAB_RESEARCHER_KEY
out.update(error=r.error, me=r.me, source=r.source.value, sources=[key for _, key in r.source.options])
out["rows"] = [[a["participant"], a["id"]] for a in r.attempts]
out["labels"] = [label for label, _ in r.picker.options]
out["groups"] = r.groups
r.list_group("study:pilot")
out["participants"] = r.detail.value
r.view_attempt(ATTEMPT)
out["detail"], out["detail_error"] = r.detail.value, r.error
print(json.dumps(out))
"""


def test_a_researcher_browses_a_proctored_studys_participants_from_their_own_kernel(tmp_path):
    attempts = attempts_for(tmp_path / "tasks")
    config = server_config(
        tmp_path / "tasks",
        [tmp_path / "tasks"],
        proctored=True,
        participant="rita",
        researchers=["rita"],
        studies={"pilot": STUDY},
        researcher_key_sha256=hashlib.sha256(KEY.encode()).hexdigest(),
    )
    server = Server(tmp_path, "rita", config)
    try:
        server.wait()
        server.call("POST", "cibench-lab/api/studies/pilot/consent", {"accept": True, "code": "P01"})
        server.call("POST", "cibench-lab/api/studies/pilot/handover", {})
        study = StudyAttempt("pilot", "model-parity", PlaySettings())
        task = attempts.library.get(EN)
        aid = attempts.create(NewAttempt(task, "e2e", "human", "P01", PlaySettings(), {}, study=study))
        attempts.record_turn(aid, 0, printed("P01's own words"))
        attempts.settle(aid, 0, "next")
        seen = _in_own_kernel(tmp_path, f"URL, TOKEN, ATTEMPT = {server.url!r}, {TOKEN!r}, {aid!r}\n{PROBE}")
    finally:
        server.stop()
        attempts.store.dispose()
    assert seen["seat_sources"] == ["mine"]  # without the key the seat is a participant's
    assert seen["seat_refused"].endswith("may list; offered: mine."), seen["seat_refused"]
    assert seen["error"] is None, seen
    assert seen["me"]["roles"] == ["participant", "researcher"]
    assert seen["sources"] == ["mine", "runs", "study"] and seen["source"] == "study"
    assert seen["rows"] == [["P01", aid]]
    assert seen["labels"][0].startswith("P01 · Rules · open · task 1 of 1")
    assert seen["groups"] == [["All (1)", "all"], ["Study: Pilot (1)", "study:pilot"]]
    assert "<td>P01</td>" in seen["participants"] and "0 of 1" in seen["participants"]
    assert seen["detail_error"] is None, seen
    assert "<h4>P01: Rules</h4>" in seen["detail"] and "P01&#x27;s own words" in seen["detail"]
    assert "Print the words." in seen["detail"] and "Reference" not in seen["detail"]


def _in_own_kernel(tmp_path, code: str) -> dict:
    """Run ``code`` in a Python kernel of no server (no runtime file, no server variables), the
    researcher key in its environment."""
    empty = tmp_path / "no-servers"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "JUPYTER_RUNTIME_DIR": str(empty)}
    for name in ("JUPYTER_SERVER_URL", "JUPYTERHUB_SERVICE_URL", "JUPYTER_TOKEN", *where.TOKEN_VARS):
        env.pop(name, None)
    env[where.KEY_VAR] = KEY
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        return _run(client, code)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
