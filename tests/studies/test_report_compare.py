"""`cibench-lab report --compare humans:STUDY RUN`: people beside a model run, checked by hand.

Two tasks (pandas: 3 steps, nltk: 2).  A scripted model (our OpenAI-compatible server, the real
``openai`` client, real kernels through ``cibench-lab run``) passes pandas #1 and #2 only.  Two people
play both tasks through the engine's Attempts API (turns graded for real; no kernel: their outputs are
given), a third quits the pandas task; one person's first nltk attempt is replaced by a later one.
Who passed what (1 = passed):

    step        alice  bob  model   passed by
    pandas #1     1     1     1       3
    pandas #2     1     0     1       2
    pandas #3     0     0     0       0
    nltk #1       1     1     0       2
    nltk #2       1     0     0       1

so the Rasch ranking (complete data: difficulty falls with the passes) is pandas #3, nltk #2,
pandas #2 = nltk #1, pandas #1.  Working times are set on the rows by hand (``TIMES``).
The module fixture's model run costs a few seconds of kernels; the other tests are fast.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sqlite3
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from openai_server import ScriptedServer
from sqlalchemy import select

from cibench_lab.benchmarks import benchmark_of
from cibench_lab.cli import main
from cibench_lab.grading.comparability import conditions, mismatches
from cibench_lab.grading.rasch import RIDGE, fit
from cibench_lab.grading.turn import TurnOutput
from cibench_lab.kernels.environment import attempt_environment
from cibench_lab.play.attempt import Attempts, NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.store import Store
from cibench_lab.store.pseudonym import new_salt, pseudonym
from cibench_lab.store.tables import Attempt, Run, StepRow, Study, Turn
from cibench_lab.tasks.library import TaskLibrary

KEY = "sk-test-compare"
STUDY = "pilot"
A, B = "cibench_template/pandas/cmp_a", "cibench_template/nltk/cmp_b"
ANSWERS = {A: ["11", "22", "33"], B: ["44", "55"]}
#: model-parity: what a model meets (no grades shown, no reference, kept as settled, 3 runs a step)
PARITY = PlaySettings(show_grades=False, turn_cap=3, reveal="never", grade_rule="settling", pause_after=300)
#: (first run at, settled at) seconds after the step opened, per person, task and step: working time is
#: the settle time, except bob's nltk #1 (a 400 s gap counts the 300 s pause threshold: 300 + 1 + 9)
TIMES = {
    ("alice", A): [(1, 20), (1, 40), (1, 60)],
    ("bob", A): [(1, 30), (1, 80), (1, 100)],
    ("alice", B): [(1, 30), (1, 50)],
    ("bob", B): [(400, 410), (1, 20)],
}
T0 = dt.datetime(2025, 3, 1, 9, 0, 0)


def write_tasks(root: Path) -> None:
    for task_id, answers in ANSWERS.items():
        cells = []
        for i, answer in enumerate(answers):
            cells.append(new_markdown_cell(f"Step {i + 1}: print the number {answer}."))
            printed = new_output("stream", text=answer + "\n")
            cells.append(new_code_cell(f"print({answer})", outputs=[printed]))
        nb = new_notebook(cells=cells)
        nb.metadata["step_types"] = ["num"] * len(answers)
        nb.metadata["cibench_lab"] = {"schema_version": 1, "title": task_id.rsplit("/")[-1], "language": "en"}
        path = root / f"{task_id}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True, exist_ok=True)


def reply(code: str) -> dict:
    return {"reply": f"Thought: print it.\nAction: IPythonInterpreter\nAction Input: ```python\n{code}\n```"}


def model_run(root: Path, db: str, tmp: Path, monkeypatch) -> None:
    """The scripted model, tasks in id order (nltk first): misses both nltk steps and pandas #3."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    cfg = tmp / "models.json"
    cfg.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01, "request_timeout": 30}}}))
    codes = ["print(0)", "print(0)", "print(11)", "print(22)", "print(0)"]
    with ScriptedServer([reply(c) for c in codes], model="scripted", key=KEY) as server:
        rc = main([
            "--task-dir", str(root), "--db", db, "run", "--player", "openai:scripted", "--model-config",
            str(cfg), "--base-url", server.base_url, "--tasks", "cibench_template/*", "--run", "model",
            "--no-progress",
        ])  # fmt: skip
    server.check()
    assert rc == 0


def out(text: str) -> TurnOutput:
    return TurnOutput(f"print({text})", [{"output_type": "stream", "name": "stdout", "text": text + "\n"}])


def play(attempts: Attempts, task, person: str, script: list[tuple[list[str], str | None]]) -> str:
    """A person's attempt: per step, the printed answers and how they settle it (None: the turn cap)."""
    attempt_id = attempts.create(
        NewAttempt(
            task,
            "e2e",
            "human",
            person,
            PARITY,
            attempt_environment(task, benchmark_of(task).profile_versions()),
        )
    )
    with attempts.store.session() as s:
        row = s.get(Attempt, attempt_id)
        row.study_id, row.protocol = STUDY, "model-parity"
    for step, (answers, settle) in enumerate(script):
        for answer in answers:
            attempts.record_turn(attempt_id, step, out(answer))
        if settle:
            attempts.settle(attempt_id, step, settle)
    return attempt_id


def set_times(store: Store, attempt_id: str, spans: list[tuple[int, int]], start: dt.datetime) -> None:
    """Step i opens where step i-1 settled; its turns run 1 s each, 2 s apart, from its first run."""
    with store.session() as s:
        opened = start
        for step, (first, settled) in enumerate(spans):
            row = s.scalar(select(StepRow).where(StepRow.attempt_id == attempt_id, StepRow.index == step))
            row.opened_at, row.settled_at = opened, opened + dt.timedelta(seconds=settled)
            turns = s.scalars(select(Turn).where(Turn.attempt_id == attempt_id, Turn.step == step))
            for turn in turns:
                turn.started_at = opened + dt.timedelta(seconds=first + 2 * turn.number)
                turn.finished_at = turn.started_at + dt.timedelta(seconds=1)
            opened = row.settled_at


def people(store: Store, lib: TaskLibrary) -> str:
    salt = new_salt()
    with store.session() as s:
        s.add(Study(id=STUDY, title="Pilot", config={}, salt=salt))
    attempts = Attempts(store, lib)
    a, b = lib.get(A), lib.get(B)
    capped = (["0"] * 3, None)  # three misses settle the step at the turn cap
    plays = {
        ("alice", A): play(attempts, a, "alice", [(["11"], "next"), (["0", "22"], "next"), capped]),
        ("bob", A): play(attempts, a, "bob", [(["11"], "next"), (["0"], "gave_up"), (["1"], "gave_up")]),
        ("alice", B): play(attempts, b, "alice", [(["44"], "next"), (["55"], "next")]),
    }
    play(attempts, b, "bob", [(["0"], "next"), (["0"], "next")])  # replaced by bob's later attempt
    plays["bob", B] = play(attempts, b, "bob", [(["44"], "next"), (["0"], "next")])
    quitter = play(attempts, a, "carol", [(["11"], "next")])
    with store.session() as s:
        s.get(Attempt, quitter).status = "quit"
    for i, (key, attempt_id) in enumerate(plays.items()):
        set_times(store, attempt_id, TIMES[key], T0 + dt.timedelta(hours=i))
    return salt


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compare")
    root = tmp / "tasks"
    write_tasks(root)
    db = f"sqlite:///{tmp / 'results.sqlite'}"
    with pytest.MonkeyPatch.context() as monkeypatch:
        model_run(root, db, tmp, monkeypatch)
    lib = TaskLibrary.load([root])
    assert not lib.problems, lib.problems
    store = Store(db)
    salt = people(store, lib)
    store.dispose()
    return {"db": db, "file": tmp / "results.sqlite", "salt": salt, "root": root}


def report(db: str, capsys, *extra: str) -> tuple[int, str, str]:
    rc = main(["--db", db, "report", "--compare", f"humans:{STUDY}", "model", "--profile", "fair", *extra])
    got = capsys.readouterr()
    return rc, got.out, got.err


def bootstrap_ci(passed: list[int], steps: list[int]) -> list[float]:
    """The documented rule, computed here: resample participants (2,000 times, seed 0), ratio of sums,
    each bound to one decimal as the report keeps every figure."""
    n = len(steps)
    idx = np.random.default_rng(0).integers(0, n, size=(2000, n))
    ratios = 100 * np.array(passed)[idx].sum(1) / np.array(steps)[idx].sum(1)
    return [round(float(np.percentile(ratios, q)), 1) for q in (2.5, 97.5)]


def by_step(rep: dict) -> dict[tuple[str, int], dict]:
    return {(row["task"], row["step"]): row for row in rep["steps"]}


def test_numbers_match_the_hand_computed_ones(played, capsys):
    rc, text, err = report(played["db"], capsys, "--format", "json")
    assert rc == 0, err
    rep = json.loads(text)
    assert rep["people"] == 2 and rep["comparability"]["mismatches"] == []
    steps = by_step(rep)
    want = {(A, 0): [1, 1], (A, 1): [1, 0], (A, 2): [0, 0], (B, 0): [1, 1], (B, 1): [1, 0]}
    for key, passes in want.items():
        humans = steps[key]["humans"]
        assert (humans["n"], humans["passed"], humans["rate"]) == (2, sum(passes), 50.0 * sum(passes))
        assert humans["ci"] == bootstrap_ci(passes, [1, 1])
    assert steps[A, 1]["humans"]["ci"] == [0.0, 100.0] and steps[A, 0]["humans"]["ci"] == [100.0, 100.0]
    assert {k: steps[k]["humans"]["quit"] for k in steps} == {k: (1 if k[0] == A else 0) for k in steps}
    model = {key: steps[key]["runs"]["model"]["passed"] for key in steps}
    assert model == {(A, 0): True, (A, 1): True, (A, 2): False, (B, 0): False, (B, 1): False}
    assert steps[A, 0]["runs"]["model"]["score"] == 100.0 and steps[B, 0]["runs"]["model"]["score"] == 0.0
    assert steps[A, 1]["runs"]["model"]["outcome"] == "passed"  # settled at its first error-free turn


def test_working_time_median_and_iqr(played, capsys):
    rep = json.loads(report(played["db"], capsys, "--format", "json")[1])
    steps = by_step(rep)
    assert steps[A, 0]["humans"]["time"] == {"n": 2, "median": 25.0, "q1": 22.5, "q3": 27.5}
    assert steps[B, 0]["humans"]["time"] == {"n": 2, "median": 170.0, "q1": 100.0, "q3": 240.0}  # 30, 310
    tasks = {row["task"]: row for row in rep["tasks"]}
    assert tasks[A]["humans"]["time"] == {"n": 2, "median": 165.0, "q1": 142.5, "q3": 187.5}  # 120, 210
    assert tasks[B]["humans"]["time"] == {"n": 2, "median": 205.0, "q1": 142.5, "q3": 267.5}  # 80, 330


def test_task_and_library_rates(played, capsys):
    rep = json.loads(report(played["db"], capsys, "--format", "json")[1])
    tasks = {row["task"]: row for row in rep["tasks"]}
    assert tasks[A]["humans"]["rate"] == 50.0 and tasks[B]["humans"]["rate"] == 75.0
    assert tasks[A]["humans"]["ci"] == bootstrap_ci([2, 1], [3, 3]) == [33.3, 66.7]  # one decimal
    assert tasks[B]["humans"]["ci"] == bootstrap_ci([2, 1], [2, 2])
    assert tasks[A]["runs"]["model"]["rate"] == 66.7
    assert tasks[B]["runs"]["model"]["rate"] == 0
    libs = {row["lib"]: row for row in rep["libraries"]}
    assert libs["pandas"]["humans"]["rate"] == 50.0
    assert libs["nltk"]["runs"]["model"] == {
        "tasks": 1, "steps": 2, "passed": 0, "rate": 0.0, "score": 0.0, "not_graded": 0,
    }  # fmt: skip


def test_rasch_ranks_the_steps(played, capsys):
    rep = json.loads(report(played["db"], capsys, "--format", "json")[1])
    fit_ = rep["difficulty"]
    assert fit_["converged"] and fit_["ridge"] == RIDGE
    ranked = [(i["task"], i["step"], i["rank"]) for i in fit_["items"]]
    assert ranked == [(A, 2, 1), (B, 1, 2), (B, 0, 3), (A, 1, 3), (A, 0, 5)]
    steps = by_step(rep)
    assert steps[A, 1]["difficulty"] == pytest.approx(steps[B, 0]["difficulty"], abs=1e-3)
    who = {r["who"]: r for r in fit_["respondents"]}
    assert set(who) == {pseudonym(played["salt"], "alice"), pseudonym(played["salt"], "bob"), "model"}
    assert who[pseudonym(played["salt"], "alice")]["ability"] > who["model"]["ability"]


def test_table_csv_and_plots(played, capsys, tmp_path):
    rc, text, err = report(played["db"], capsys, "--plots", str(tmp_path / "plots"))
    assert rc == 0, err
    assert "per step · humans:pilot (2 people) vs model · profile fair" in text
    assert "steps by difficulty (Rasch, ridge 0.1)" in text and "50.0 [0.0–100.0]" in text
    assert "(+1 quit)" in text and "bootstrap over participants (2,000 resamples, seed 0)" in text
    assert "a model at its first error-free turn" in text  # the settle difference is a note
    for name in ("libraries.png", "time_vs_difficulty.png"):
        assert (tmp_path / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rc, text, _ = report(played["db"], capsys, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["section"] for r in rows} == {"step", "task", "library"}
    step = [r for r in rows if r["section"] == "step" and r["task"] == A and r["step"] == "1"]
    assert [(r["who"], r["rate"], r["rank"], r["mismatch"]) for r in step] == [
        ("humans", "50.0", "3", ""),
        ("model", "100.0", "3", ""),
    ]


def test_a_mismatch_is_refused_or_marked(played, capsys, tmp_path):
    copy = tmp_path / "mismatch.sqlite"
    with sqlite3.connect(played["file"]) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)  # with what the write-ahead log holds
    db = f"sqlite:///{copy}"
    store = Store(db)
    with store.session() as s:  # one person played the pandas task without the turn cap
        row = s.scalars(select(Attempt).where(Attempt.study_id == STUDY, Attempt.task_id == A)).first()
        row.settings = {**row.settings, "turn_cap": 0}
    store.dispose()
    rc, _, err = report(db, capsys)
    assert rc == 2
    assert (
        "error: humans:pilot and run model are not comparable: turn limit: humans turn_cap 0 (no cap), "
        f"turn_cap 3; model max_turn 3 (1 task: {A})" in err
    )
    rc, text, err = report(db, capsys, "--allow-mismatch", "--format", "json")
    assert rc == 0, err
    rep = json.loads(text)
    (m,) = rep["comparability"]["mismatches"]
    assert (m["run"], m["task"], m["field"], m["humans"], m["model"]) == ("model", A, "turns", [None, 3], 3)
    assert all(row["mismatch"] == (["model: turn limit"] if row["task"] == A else []) for row in rep["steps"])
    libs = {row["lib"]: row["mismatch"] for row in rep["libraries"]}
    assert libs == {"pandas": ["model: turn limit"], "nltk": []}
    rows = list(csv.DictReader(io.StringIO(report(db, capsys, "--allow-mismatch", "--format", "csv")[1])))
    assert {r["mismatch"] for r in rows if r["task"] == A} == {"model: turn limit"}
    rc, text, _ = report(db, capsys, "--allow-mismatch")
    assert "NOT COMPARABLE (marked)" in text and "MISMATCH run model, task " in text


@pytest.mark.fast
def test_rasch_on_a_designed_matrix():
    # respondents x items; item sums 3, 2, 0, 2, 1 -> ranks 5, 3, 1, 3, 2
    x = [[1, 1, 0, 1, 1], [1, 0, 0, 1, 0], [1, 1, 0, 0, 0]]
    result = fit(x)
    assert result.converged and np.all(np.isfinite(result.difficulty))  # all-pass / all-miss items too
    assert result.ranks() == [5, 3, 1, 3, 2]
    b, theta = result.difficulty, result.ability
    p = 1 / (1 + np.exp(-(theta[:, None] - b[None, :])))
    resid = p - np.array(x)
    # the penalised likelihood's score equations, written out here
    assert np.allclose(resid.sum(1) + RIDGE * theta, 0, atol=1e-6)
    assert np.allclose(-resid.sum(0) + RIDGE * b, 0, atol=1e-6)
    missing = fit([[1, None, 0], [None, 1, 1]])  # not played: no response
    assert missing.converged and len(missing.difficulty) == 3


@pytest.mark.fast
def test_conditions_as_the_player_met_them():
    env = {"sandbox": {"enabled": True, "network": False}, "profiles": {"fair": 1},
           "kernel": {"constraints_sha256": "ab" * 32}}  # fmt: skip
    model = conditions("openai:m", "e2e", PlaySettings().for_player().as_dict(), env, "h", [], "fair")
    person = conditions("human", "e2e", PARITY.as_dict(), env, "h", [], "fair")
    assert mismatches([person], model) == []  # a model is never shown grades nor a reference
    assert model["show_grades"] is False and model["reveal"] == "never" and model["turns"] == 3
    practice = conditions("human", "e2e", PlaySettings().as_dict(), env, "h", [], "fair")
    differ = [m.field for m in mismatches([practice], model)]
    assert differ == ["turns", "show_grades", "grade_rule", "reveal"]
    open_net = conditions("human", "e2e", PARITY.as_dict(), {"sandbox": {"enabled": False}}, "h", [], "fair")
    (net,) = [m for m in mismatches([open_net], model) if m.field == "network"]
    assert net.reason() == "network: humans on; model off"  # an unsandboxed kernel has the network
    assert open_net["profile_version"] == "unrecorded" and open_net["kernel_env"] == "unrecorded"
    judged = conditions("human", "oracle", PARITY.as_dict(), env, "h", ["gpt-v"], "fair")
    assert judged["reveal"] == "oracle" and judged["judge"] == "gpt-v"


@pytest.mark.fast
def test_bad_requests_are_one_line_errors(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    store = Store(db)
    with store.session() as s:
        s.add(Study(id="other", title="Other", config={}, salt=new_salt()))
        s.add(Run(name="model", player="openai:m", mode="e2e", config={}))
    store.dispose()
    cases = {
        ("--compare", "pilot", "model"): "--compare: expected humans:STUDY, not 'pilot'",
        ("--compare", "humans:pilot"): "--compare: name at least one RUN",
        ("--compare", "humans:pilot", "nope"): "no run named 'nope' (known: model)",
        ("--compare", "humans:pilot", "model"): "no study 'pilot' in the results database (recorded: other)",
        ("--compare", "humans:other", "model"): "study other: no finished attempts by people yet (0 quit)",
        ("model", "--allow-mismatch"): "--plots and --allow-mismatch go with --compare humans:STUDY",
    }
    for args, message in cases.items():
        assert main(["--db", db, "report", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and "Traceback" not in err, (args, err)


def test_people_beside_models_default_to_the_grade_people_see(played, capsys):
    """`report --compare` without --profile shows `fair` (the lab's Results view's profile); a run's report
    without it stays on CIBench's own `cibench`."""
    rc = main(["--db", played["db"], "report", "--compare", f"humans:{STUDY}", "model", "--format", "json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["profile"] == "fair"
    rc = main(["--db", played["db"], "report", "model", "--format", "json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)["profile"] == "cibench"
