"""`cibench-lab export --format csv|jsonl`: the tables, their documented columns, pseudonyms, filters,
and the rows of quitting, giving up and the action trace (data: tests/exportdb.py, no kernel)."""

from __future__ import annotations

import base64
import csv
import hashlib
import json
import re
from pathlib import Path

import pytest
from exportdb import EXPLORATION, NOTE, PLOT_PNG, STUDY, build

from cibench_lab.cli import main
from cibench_lab.store.pseudonym import pseudonym

pytestmark = pytest.mark.fast

DOC = Path(__file__).parent.parent.parent / "docs" / "exports.md"
TABLES = ("attempts", "steps", "turns", "events", "participants")
NAMES = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("export-db"))


def export(built, folder: Path, *options: str, fmt: str = "csv") -> int:
    args = ["--db", built.db, "--task-dir", str(built.root), "export", "--format", fmt, *options]
    return main([*args, str(folder)])


def read_csv(folder: Path, table: str) -> list[dict[str, str]]:
    with (folder / f"{table}.csv").open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def header(folder: Path, table: str) -> list[str]:
    with (folder / f"{table}.csv").open(newline="", encoding="utf-8") as f:
        return next(csv.reader(f))


def documented() -> dict[str, list[str]]:
    """Each table's columns as docs/exports.md lists them (`## <table>`, rows "| `column` | ...")."""
    columns: dict[str, list[str]] = {}
    table = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            table = line[3:].strip() if line[3:].strip() in TABLES else None
        elif table and (m := re.match(r"\| `([^`]+)` \|", line)):
            columns.setdefault(table, []).append(m.group(1))
    return columns


@pytest.fixture(scope="module")
def tables(built, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("csv")
    assert export(built, folder) == 0
    return folder


def test_every_documented_column_is_exported_and_no_other(tables, built, tmp_path):
    doc = documented()
    assert set(doc) == set(TABLES)
    for table in TABLES:
        want = doc[table]
        if table == "participants":  # one column per questionnaire field: answer_<name>
            assert want[-1] == "answer_<name>"
            want = [*want[:-1], "answer_expertise", "answer_python_years"]
        assert header(tables, table) == want, table
    assert export(built, tmp_path, fmt="jsonl") == 0
    for table in TABLES:
        first = json.loads((tmp_path / f"{table}.jsonl").read_text(encoding="utf-8").splitlines()[0])
        assert list(first) == header(tables, table), table


def test_documented_rows_have_a_type_unit_and_meaning():
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if re.match(r"\| `[^`]+` \|", line):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            assert len(cells) == 4 and all(cells), line


def test_people_are_pseudonymised_by_default(tables, built):
    rows = {r["attempt_id"]: r for r in read_csv(tables, "attempts")}
    shown = {who: rows[built.ids[who]]["participant"] for who in ("alice", "bob", "carol", "run")}
    assert shown["alice"] == pseudonym(built.salt, "alice") and shown["bob"] == pseudonym(built.salt, "bob")
    assert shown["carol"] == f"u-{built.participant_id('carol')}"  # outside a study
    assert shown["run"] == "player:reference"  # a run's player is not a person
    assert [r["participant"] for r in read_csv(tables, "participants")] == [shown["alice"], shown["bob"]]
    for path in tables.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not any(name in text for name in NAMES), path.name


def test_real_names_only_with_the_flag(built, tmp_path):
    assert export(built, tmp_path, "--real-names") == 0
    rows = {r["attempt_id"]: r["participant"] for r in read_csv(tmp_path, "attempts")}
    assert [rows[built.ids[w]] for w in NAMES] == list(NAMES)
    assert [r["participant"] for r in read_csv(tmp_path, "participants")] == ["alice", "bob"]


def _attempts(folder: Path) -> set[str]:
    return {r["attempt_id"] for r in read_csv(folder, "attempts")}


def test_filters_combine(built, tmp_path, capsys):
    ids = built.ids
    cases = [
        (["--study", STUDY], {ids["alice"], ids["bob"]}, 2),
        (["--participant", "alice"], {ids["alice"]}, 1),
        (["--participant", pseudonym(built.salt, "bob")], {ids["bob"]}, 1),
        (["--participant", f"u-{built.participant_id('carol')}"], {ids["carol"]}, 0),
        (["--study", STUDY, "--participant", "carol"], set(), 0),
        (["--run", "r1"], {ids["run"]}, 0),
        (["--run", "r1", "--study", STUDY], set(), 0),
    ]
    for n, (options, want, enrolments) in enumerate(cases):
        folder = tmp_path / str(n)
        assert export(built, folder, *options) == 0, options
        assert _attempts(folder) == want, options
        assert {r["attempt_id"] for r in read_csv(folder, "turns")} == want, options
        assert {r["attempt_id"] for r in read_csv(folder, "events")} <= want, options
        assert len(read_csv(folder, "participants")) == enrolments, options
    assert "exported 0 attempts" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--study", "nope"], "no study 'nope' (known: pilot)"),
        (["--run", "nope"], "no run named 'nope'"),
        (["--participant", "nobody"], "no participant 'nobody'"),
        (["--participant", "p-000000000000"], "no participant 'p-000000000000'"),
    ],
)
def test_an_unknown_filter_is_one_line_and_exit_2(built, tmp_path, capsys, options, named):
    assert export(built, tmp_path / "out", *options) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and named in err and "\n" not in err
    assert not (tmp_path / "out").exists()


def test_give_up_quit_and_the_action_trace(tables, built):
    steps = {(r["attempt_id"], int(r["step"])): r for r in read_csv(tables, "steps")}
    alice, bob = built.ids["alice"], built.ids["bob"]
    assert steps[(alice, 1)]["outcome"] == "gave_up" and steps[(alice, 1)]["cibench_passed"] == "false"
    rows = {r["attempt_id"]: r for r in read_csv(tables, "attempts")}
    assert rows[bob]["status"] == "quit" and rows[bob]["finished_at"] and rows[bob]["steps_settled"] == "1"
    assert steps[(bob, 1)]["settled_at"] == "" and steps[(bob, 1)]["outcome"] == ""
    assert steps[(bob, 1)]["turns"] == "1" and (bob, 2) not in steps  # never opened
    assert steps[(bob, 0)]["note"] == NOTE
    trace = [
        (r["kind"], r["step"], json.loads(r["detail"]))
        for r in read_csv(tables, "events")
        if r["attempt_id"] == bob
    ]
    kinds = [k for k, *_ in trace]
    assert kinds == ["settle", "note", "pause", "resume", "cell_run", "cell_run", "cell_edits", "quit"]
    graded, run = (d for k, _, d in trace if k == "cell_run")
    assert run["code"] == EXPLORATION and run["graded"] is False and run["turn"] is None
    assert graded["msg_id"] == "m-turn" and graded["graded"] is True and graded["turn"] == 0
    assert ("pause", "1", {"step": 1, "cause": "button"}) in trace
    assert rows[bob]["cibench_tool"] == ""  # no summary for an attempt left unfinished


def test_working_time_kept_turns_and_settings(tables, built):
    alice = built.ids["alice"]
    steps = [r for r in read_csv(tables, "steps") if r["attempt_id"] == alice]
    # step 0: 40 s of wall time; step 1: 10 s, a 1 s run, then 949 s alone counting pause_after=300
    assert [float(r["working_seconds"]) for r in steps] == [40.0, 311.0, 10.0, 10.0]
    assert steps[0]["first_run_at"] == "2025-03-01T09:00:05.000000Z" and steps[0]["turns"] == "2"
    assert steps[0]["cibench_kept_turn"] == steps[0]["fair_kept_turn"] == "1"
    assert steps[3]["cibench_score"] == "" and steps[3]["cibench_passed"] == "true"  # an exec step
    row = next(r for r in read_csv(tables, "attempts") if r["attempt_id"] == alice)
    assert float(row["working_seconds"]) == 371.0 and row["created_at"] == "2025-03-01T09:00:00.000000Z"
    settings = {
        k: row[k] for k in ("show_grades", "turn_cap", "reveal", "grade_rule", "pause_after", "max_turn")
    }
    assert settings == {"show_grades": "false", "turn_cap": "3", "reveal": "never", "grade_rule": "settling",
                        "pause_after": "300", "max_turn": "3"}  # fmt: skip
    assert (row["study"], row["protocol"], row["run"], row["status"]) == (STUDY, "model-parity", "", "done")
    assert float(row["cibench_num"]) == 0.0 and float(row["cibench_text"]) == 100.0


def test_turn_outputs_are_text_and_image_digests(tables, built):
    turns = [r for r in read_csv(tables, "turns") if r["attempt_id"] == built.ids["alice"]]
    first, second = turns[0], turns[1]
    assert first["error"] == "true" and first["status"] == "error"
    assert first["error_text"] == "NameError: name 'totl' is not defined" and first["stdout"] == ""
    assert second["stdout"] == "alpha beta gamma\n" and second["cibench_passed"] == "true"
    plot = turns[3]
    assert plot["images"] == "1" and plot["result"] == ""  # a display's text beside its image is not a result
    assert plot["image_sha256"] == hashlib.sha256(base64.b64decode(PLOT_PNG)).hexdigest()
    assert PLOT_PNG[:40] not in (tables / "turns.csv").read_text()
    assert turns[4]["result"] == "1" and float(turns[0]["seconds"]) == 1.0


def test_the_run_records_its_environment(tables, built):
    row = next(r for r in read_csv(tables, "attempts") if r["attempt_id"] == built.ids["run"])
    assert (row["player"], row["run"], row["status"], row["grade_rule"]) == (
        "reference",
        "r1",
        "done",
        "settling",
    )
    assert row["kernel_env_sha256"].endswith("abcd") and row["python"] == "3.11.2"
    assert (row["sandbox"], row["network"], row["profile_version"]) == ("true", "false", "0.1.0")
    assert float(row["fair_vis"]) == 100.0


def test_jsonl_keeps_json_types(built, tmp_path):
    assert export(built, tmp_path, "--participant", "bob", fmt="jsonl") == 0
    lines = (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    quit_event = json.loads(lines[-1])
    assert quit_event["kind"] == "quit" and quit_event["detail"] == {"step": 1} and quit_event["step"] == 1
    (attempt,) = [json.loads(x) for x in (tmp_path / "attempts.jsonl").read_text().splitlines()]
    assert attempt["show_grades"] is False and attempt["turn_cap"] == 3 and attempt["finished_at"]
    (person,) = [json.loads(x) for x in (tmp_path / "participants.jsonl").read_text().splitlines()]
    assert person["answer_python_years"] == 1 and person["plan"][0]["mode"] == "e2e"


def test_a_table_format_takes_one_folder(built, tmp_path, capsys):
    args = ["--db", built.db, "export", "--format", "csv", "r1", str(tmp_path)]
    assert main(args) == 2
    assert "takes one folder DIR (choose a run with --run RUN)" in capsys.readouterr().err
    assert (
        main(["--db", built.db, "export", "--format", "opencompass", "--study", STUDY, "r1", str(tmp_path)])
        == 2
    )
