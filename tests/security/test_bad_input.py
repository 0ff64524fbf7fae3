"""Issue 26, item 9: bad input answers in one line naming the file, line, cell or field — never a
traceback or a 500 — nothing is left half-written, and the rest of an import goes on past a bad row.
(The attacks that need a kernel are in ``test_bad_input_kernel.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PROBE_ID

from cibench_lab.tasks.importer import import_tasks

pytestmark = pytest.mark.fast
LONG = "d/" * 3000 + "x.jsonl"  # a 6 KB path: longer than any file name the OS takes


CODES_TOML = """
title = "Lab machine study"
protocol = "model-parity"
consent = "Enter the code on your card."
participant_code = true
tasks = [{ task = "cibench_template/pandas/leak_probe" }]
"""
HUB_STUDY = {"title": "Hub study", "protocol": "practice", "consent": "ok", "tasks": [{"task": PROBE_ID}]}


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path, monkeypatch):
    """The conftest's server, with a study whose participants sign in with codes, on a database
    that a hub user's records share (``HUB_STUDY``)."""
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    (tmp_path / "codes.toml").write_text(CODES_TOML)
    lab = {**jp_server_config["CIBenchLabApp"], "study_files": [str(tmp_path / "codes.toml")]}
    return {**jp_server_config, "CIBenchLabApp": {**lab, "studies": {"hub": HUB_STUDY}}}


def _one_line(text: str) -> None:
    assert "\n" not in text.strip() and "Traceback" not in text, text


# ---- the lab's routes: a transcript or a notebook path ---------------------------------------
async def test_a_transcript_not_utf8_a_reference_runs_or_at_a_6kb_path_is_a_400(api, jp_root_dir):
    """One server for the three (each start costs seconds): a reference run's transcript is refused
    because its code is the task's reference, which replaying would show before the step settles."""
    (jp_root_dir / "latin1.jsonl").write_bytes(b'{"task_id": "caf\xe9", "step": 0, "turn": 0, "code": ""}\n')
    for path, says in (("latin1.jsonl", "latin1.jsonl:1: not UTF-8"), (LONG, "player.transcript: ")):
        code, body = await api(
            "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": {"transcript": path}}
        )
        assert code == 400, (code, body)
        assert body["error"].startswith("player.transcript: ") and says in body["error"]
        _one_line(body["error"])
        assert str(jp_root_dir) not in body["error"]
    line = {"task_id": PROBE_ID, "step": 0, "turn": 0, "code": "probe = 'x'", "player": "reference"}
    (jp_root_dir / "ref.jsonl").write_text(json.dumps(line) + "\n")
    code, body = await api(
        "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": {"transcript": "ref.jsonl"}}
    )
    assert code == 400 and body["error"].startswith("player.transcript: ref.jsonl:1: "), body
    assert "reference" in body["error"]
    _one_line(body["error"])
    del line["player"]  # a transcript that does not say who played it may be a reference run's
    (jp_root_dir / "anon.jsonl").write_text(json.dumps(line) + "\n")
    code, body = await api(
        "POST", "attempts", {"task_id": PROBE_ID, "mode": "e2e", "player": {"transcript": "anon.jsonl"}}
    )
    assert code == 400 and body["error"].startswith("player.transcript: anon.jsonl:1: "), body
    assert "no player" in body["error"]
    _one_line(body["error"])


async def test_a_6kb_notebook_path_or_an_unreadable_notebook_is_a_400_naming_it_relative(
    api, jp_serverapp, jp_root_dir
):
    services = jp_serverapp.web_app.settings["cibench_lab"]
    services.roles.settings = type(services.roles.settings)(
        researchers=frozenset({services.lab.config.participant})
    )
    services.studies.seat.shared = False  # a researcher's own server (this module's study has codes)
    code, body = await api("POST", "tasks", {"notebook": LONG.replace(".jsonl", ".ipynb"), "check": True})
    assert code == 400 and body["error"].startswith("notebook: "), (code, body)
    _one_line(body["error"])
    (jp_root_dir / "t").mkdir()
    (jp_root_dir / "t" / "broken.ipynb").write_text("{not json")
    code, body = await api("POST", "tasks", {"notebook": "t/broken.ipynb", "check": True})
    assert code == 400 and body["error"].startswith("t/broken.ipynb: not a readable notebook"), body
    assert str(jp_root_dir) not in body["error"]


# ---- a participant code that is a hub user's name --------------------------------------------
async def test_a_participant_code_equal_to_a_users_name_is_refused(api, jp_serverapp):
    from cibench_lab.studies.enrolment import enrol

    services = jp_serverapp.web_app.settings["cibench_lab"]
    a = services.lab.attempts
    enrol(a.store, a.library, services.studies.study("hub"), "ada", {})  # the hub user ada's record
    code, body = await api("POST", "studies/codes/consent", {"accept": True, "code": "ada"})
    assert code == 400 and body["error"].startswith("code: "), (code, body)
    _one_line(body["error"])
    code, hub = await api("GET", "studies/hub")
    assert hub["participant"] != "ada" and hub["enrolment"] is None
    code, view = await api("POST", "studies/codes/consent", {"accept": True, "code": "P01"})
    assert code == 200 and view["participant"] == "P01"  # a code nobody holds signs in
    await api("POST", "studies/codes/handover", {})
    code, view = await api("POST", "studies/codes/consent", {"accept": True, "code": "P01"})
    assert code == 200 and view["participant"] == "P01"  # and comes back


# ---- Qwen's JSONL: one bad line is one line of the report ------------------------------------
def _item(query: str) -> str:
    return json.dumps({"query": query, "tags": "data", "input_file_path": [], "lang": "en"})


def test_a_qwen_line_100000_deep_or_not_utf8_is_rejected_by_line_and_the_rest_imports(tmp_path):
    source = tmp_path / "eval.jsonl"
    deep = b"[" * 100_000 + b"]" * 100_000
    lines = [
        _item("one").encode(),
        deep,
        _item("three").encode(),
        b'{"query": "caf\xe9"}',
        _item("five").encode(),
    ]
    source.write_bytes(b"\n".join(lines) + b"\n")
    report = import_tasks(source, tmp_path / "into")
    assert len(report.imported) == 3, report
    rejected = dict(report.rejected)
    assert set(rejected) == {f"{source}:2", f"{source}:4"}, rejected
    assert "nested too deeply" in rejected[f"{source}:2"] and "not UTF-8" in rejected[f"{source}:4"]
    for why in rejected.values():
        _one_line(why)


def test_the_cli_says_a_bad_qwen_line_in_one_line(tmp_path, capsys):
    from cibench_lab.cli import main

    source = tmp_path / "eval.jsonl"
    source.write_text(_item("one") + "\n" + "[" * 100_000 + "\n")
    assert main(["tasks", "import", str(source), "--into", str(tmp_path / "into")]) == 0
    out = capsys.readouterr().out
    assert f"rejected   {source}:2: not a JSON object (nested too deeply)" in out.splitlines(), out
    assert "imported   cibench_qwen/" in out


# ---- a full disk in the middle of an import ---------------------------------------------------
def _official_with_big_data(tmp_path: Path) -> Path:
    from test_task_loader import official_folder

    src = official_folder(tmp_path / "cibench_dataset")
    (src / "datasources" / "data" / "big.csv").write_bytes(b"x" * (2 * 2**20))
    return src


def _qwen_with_big_data(tmp_path: Path) -> Path:
    src = tmp_path / "qwen"
    (src / "upload_file_clean").mkdir(parents=True)
    (src / "upload_file_clean" / "big.csv").write_bytes(b"x" * (2 * 2**20))
    row = {"query": "Load big.csv", "tags": "data", "input_file_path": ["big.csv"], "lang": "en"}
    (src / "eval.jsonl").write_text(json.dumps(row) + "\n")
    return src


@pytest.mark.parametrize("source", [_official_with_big_data, _qwen_with_big_data], ids=["cibench", "qwen"])
def test_an_import_a_full_disk_stops_leaves_no_task_without_its_data(tmp_path, source):
    """The task directory on a 1 MB tmpfs (a mount namespace of the CLI's own: test_faults.py), the
    data 2 MB: the import stops in one line, and no notebook is left naming data that is not there."""
    from test_faults import clab, one_line_error, tmpfs

    into = tmp_path / "into"
    into.mkdir()
    listing = f"find {into} -name '*.ipynb' -o -name '.import-*' -o -name big.csv"
    proc = clab(
        tmp_path,
        tmpfs(into, "1m"),
        "tasks",
        "import",
        str(source(tmp_path)),
        "--into",
        str(into),
        after=listing,
    )
    assert one_line_error(proc).endswith(": No space left on device; free space on its disk")
    assert proc.stdout.split() == [], f"left on the full disk: {proc.stdout}"


# ---- the Results widget as a student ---------------------------------------------------------
def test_results_list_source_of_a_source_not_offered_says_why(tmp_path):
    from cibench_lab.widgets.results import Results

    results = Results(environ={"JUPYTER_RUNTIME_DIR": str(tmp_path)})
    results.source.options = [("My attempts", "mine")]  # what a student's server offers
    results.list_source("class")
    assert results.error is not None and "class" in results.error and "mine" in results.error, results.error
