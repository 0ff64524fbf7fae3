"""Model runs through `cibench-lab run` against the scripted OpenAI-compatible server.

The server asserts every request against golden transcripts: for cibench-react those
were recorded from OpenCompass's original agent (tests/fixtures/react/make_golden.py),
so a passing run means our messages are the original's byte for byte — observations
from a real kernel included — through retries, resumes and both modes.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openai_server import ScriptedServer, exchanges_from_golden
from sqlalchemy import select

from cibench_lab.cli import main
from cibench_lab.runs.lease import STALE_ENV
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Event, OracleReference, Run, Turn

HERE = Path(__file__).parent.parent
REACT = HERE / "fixtures" / "react"
TASK = "cibench_template/pandas/react_probe"
KEY = "sk-test-SECRET-never-stored"
EMPTY = "The input code is empty. Please follow the format."


def golden(name: str) -> dict:
    return json.loads((REACT / f"golden_{name}.json").read_text())


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    cfg = tmp_path / "models.json"
    cfg.write_text(json.dumps({"models": {"scripted": {"backoff": 0.01, "request_timeout": 1.5}}}))
    return {
        "db": f"sqlite:///{tmp_path / 'runs.sqlite'}",
        "dbfile": tmp_path / "runs.sqlite",
        "cfg": str(cfg),
    }


def run_args(env: dict, server: ScriptedServer, run: str, *extra: str) -> list[str]:
    return [
        "--task-dir", str(REACT / "tasks"), "--db", env["db"], "run", "--player", "openai:scripted",
        "--model-config", env["cfg"], "--base-url", server.base_url, "--tasks", TASK, "--run", run,
        "--no-progress", *extra,
    ]  # fmt: skip


def turns_of(env: dict, run: str) -> tuple[Attempt, list[Turn]]:
    store = Store(env["db"])
    with store.session() as s:
        run_id = s.scalar(select(Run.id).where(Run.name == run))
        attempt = s.scalar(select(Attempt).where(Attempt.run_id == run_id))
        turns = s.scalars(
            select(Turn).where(Turn.attempt_id == attempt.id).order_by(Turn.step, Turn.number)
        ).all()
        s.expunge_all()
    store.dispose()
    return attempt, list(turns)


def expected_actions(steps: list[list[dict]]) -> list[list[tuple[str, bool]]]:
    """What each original action is in our records: (action, error)."""
    kinds = {
        "NoAction": ("no_action", True),
        "InvalidAction": ("invalid", True),
        "FinishAction": ("finish", False),
    }
    out = []
    for step in steps:
        row = []
        for a in step:
            if a["type"] != "IPythonInterpreter":
                row.append(kinds[a["type"]])
            else:
                row.append(("empty" if a["errmsg"] == EMPTY else "code", a["state"] != 0))
        out.append(row)
    return out


@pytest.mark.parametrize("name", ["e2e", "oracle", "e2e_merge", "oracle_merge"])
def test_react_run_is_opencompass_byte_for_byte(env, capsys, name):
    g = golden(name)
    exchanges = exchanges_from_golden(g)
    exchanges[0]["faults"] = ["429", "500"]
    exchanges[4]["faults"] = ["malformed", "hang:4"]  # a hang past the 1.5 s request timeout
    extra = ["--mode", g["mode"], *(["--merge-roles"] if g["merge_roles"] else [])]
    export = Path(env["dbfile"]).with_suffix(".jsonl")
    with ScriptedServer(exchanges, model="scripted", key=KEY) as server:
        rc = main(run_args(env, server, name, *extra, "--export-transcript", str(export)))
    out = capsys.readouterr().out
    server.check()
    assert rc == 0, out
    assert out.splitlines()[-1].split()[1:] == ["83.3", "66.7", "66.7", "0.0", "100.0"], out
    attempt, turns = turns_of(env, name)
    by_step = [[(t.meta["action"], t.error) for t in turns if t.step == i] for i in range(attempt.n_steps)]
    assert by_step == expected_actions(g["steps"])
    prompts = [t.meta["prompt"] for t in turns]
    assert prompts == [r["messages"] for r in g["requests"]]
    assert all(t.meta["tokens"]["total"] and t.meta["latency_s"] > 0 for t in turns)
    assert [t.meta["retries"] for t in turns][:5] == [2, 0, 0, 0, 2]
    assert all(t.meta.get("merge_roles", False) == g["merge_roles"] for t in turns)
    lines = [json.loads(ln) for ln in export.read_text().splitlines()]
    assert [(ln["step"], ln["turn"]) for ln in lines] == [(t.step, t.number) for t in turns]
    assert lines[1]["action"] == "no_action" and lines[1]["response"] == "I think the answer is four rows."
    for path in (env["dbfile"], export):
        assert KEY.encode() not in Path(path).read_bytes()


@pytest.mark.parametrize("mode", ["e2e", "oracle"])
def test_tools_run_matches_its_golden(env, capsys, mode):
    g = golden(f"tools_{mode}")
    exchanges = exchanges_from_golden(g)
    exchanges[2]["faults"] = ["hang:4"]
    exchanges[6]["faults"] = ["drop", "429"]
    with ScriptedServer(exchanges, model="scripted", key=KEY) as server:
        rc = main(run_args(env, server, f"tools-{mode}", "--protocol", "tools", "--mode", mode))
    out = capsys.readouterr().out
    server.check()
    assert rc == 0 and out.splitlines()[-1].split()[1:] == ["100.0"] * 5, out
    _, turns = turns_of(env, f"tools-{mode}")
    assert [t.meta["action"] for t in turns] == [
        "code", "no_action", "code", "code", "invalid", "invalid", "code", "code", "code", "code",
    ]  # fmt: skip
    assert turns[6].meta["observation"][1]["content"].startswith("Not run")


def test_a_killed_run_resumes_where_it_stopped(env, capsys, tmp_path, monkeypatch):
    """kill -9 while the model is answering step 3's second turn; the same --run finishes the
    attempt (once the killed run's lease is stale), and the resumed conversation is still the
    original's byte for byte."""
    psutil = pytest.importorskip("psutil")
    exchanges = exchanges_from_golden(golden("e2e"))
    exchanges[5]["faults"] = ["hang:120"]
    with ScriptedServer(exchanges, model="scripted", key=KEY) as server:
        args = run_args(env, server, "killed")
        proc = subprocess.Popen(
            [sys.executable, "-m", "cibench_lab.cli", *args],
            cwd=HERE.parent,
            env={**os.environ, "PYTHONPATH": str(HERE.parent), "TMPDIR": str(tmp_path)},  # its leftovers
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert server.hanging.wait(120), "the run never reached the hanging request"
            kernels = psutil.Process(proc.pid).children(recursive=True)
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
        for child in kernels:  # an unsandboxed kernel may outlive its starter: ours to end
            if child.is_running():
                child.kill()
        attempt, turns = turns_of(env, "killed")
        seen = (attempt.status, [(t.step, t.number) for t in turns])
        assert attempt.status == "open" and len(turns) == 5, seen
        monkeypatch.setenv(STALE_ENV, "1")  # the killed run's lease: stale after 1 s, not 60
        time.sleep(1.2)
        rc = main(run_args(env, server, "killed"))
    out = capsys.readouterr().out
    server.check()
    assert rc == 0 and out.splitlines()[-1].split()[1:] == ["83.3", "66.7", "66.7", "0.0", "100.0"], out
    attempt, turns = turns_of(env, "killed")
    assert attempt.status == "done" and len(turns) == 10
    store = Store(env["db"])
    with store.session() as s:
        reasons = s.scalars(
            select(Event.detail).where(Event.attempt_id == attempt.id, Event.kind == "restore")
        )
        assert [r["reason"] for r in reasons] == ["resumed run"]


def test_a_model_that_fails_leaves_the_attempt_open_to_resume(env, capsys):
    exchanges = exchanges_from_golden(golden("oracle"))
    with ScriptedServer(exchanges[:3], model="scripted", key=KEY) as server:
        rc = main(run_args(env, server, "flaky", "--mode", "oracle"))
    captured = capsys.readouterr()
    assert rc == 1 and "incomplete" in captured.err and "--run flaky" in captured.err, captured.err
    assert len(server.mismatches) == 1 and "unexpected request" in server.mismatches[0]
    attempt, turns = turns_of(env, "flaky")
    assert attempt.status == "open" and len(turns) == 3
    with ScriptedServer(exchanges[3:], model="scripted", key=KEY) as server:
        rc = main(run_args(env, server, "flaky", "--mode", "oracle"))
    server.check()
    assert rc == 0 and capsys.readouterr().out.splitlines()[-1].split()[1:][:2] == ["83.3", "66.7"]
    assert main(run_args(env, server, "flaky", "--protocol", "tools", "--merge-roles")) == 2
    assert main(run_args(env, server, "flaky", "--mode", "oracle", "--protocol", "tools")) == 2
    assert "was played as" in capsys.readouterr().err


def write_transcript(path: Path, steps: list[list[str]]) -> None:
    with open(path, "w") as f:
        for step, codes in enumerate(steps):
            for turn, code in enumerate(codes):
                f.write(json.dumps({"task_id": TASK, "step": step, "turn": turn, "code": code}) + "\n")


def test_replay_survives_kernel_death_and_compat_timeout(env, capsys, tmp_path, monkeypatch):
    import cibench_lab.runs.local as engine_run

    monkeypatch.setattr(engine_run, "COMPAT_SILENCE", 1.0)
    transcript = tmp_path / "t.jsonl"
    write_transcript(
        transcript,
        [
            ["import pandas as pd\ndf = pd.read_csv('data/react_probe.csv')"],
            ["import os; os._exit(3)", "print(len(df))"],  # df only exists if state was restored
            ["import time; time.sleep(2.5); print('late')", "print(' '.join(df.columns))"],
            ["print(df['b'].sum())"],
            [],  # no recorded turn: the step is given up
            ["import matplotlib.pyplot as plt\ndf['b'].plot(kind='bar')\nplt.show()"],
        ],
    )
    argv = [
        "--task-dir", str(REACT / "tasks"), "--db", env["db"], "run", "--player", f"replay:{transcript}",
        "--run", "replayed", "--compat-timeout", "--no-progress",
    ]  # fmt: skip
    rc = main(argv)
    out = capsys.readouterr().out
    assert rc == 0 and out.splitlines()[-1].split()[1:] == ["83.3", "83.3", "66.7", "100.0", "100.0"], out
    attempt, turns = turns_of(env, "replayed")
    dead, timed_out = turns[1], turns[3]
    assert dead.meta["status"] == "dead" and "exit code" in dead.meta["kernel"]["died"]
    assert dead.meta["kernel"]["restored_cells"] == 1
    assert turns[2].grade["cibench"]["detail"] == "number matched"
    assert timed_out.meta["status"] == "timeout" and turns[4].error is False
    assert attempt.player == "replay:t.jsonl"


def test_a_turn_that_will_not_stop_is_restarted_and_restored(env, capsys, tmp_path, monkeypatch):
    import cibench_lab.kernels.executor as executor

    monkeypatch.setattr(executor, "INTERRUPT_GRACE", 1.0)
    ignores = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    transcript = tmp_path / "t.jsonl"
    write_transcript(
        transcript,
        [
            ["import pandas as pd\ndf = pd.read_csv('data/react_probe.csv')"],
            [ignores, "while True:\n    pass", "print(len(df))"],  # df only exists if state was restored
        ],
    )
    argv = [
        "--task-dir", str(REACT / "tasks"), "--db", env["db"], "run", "--player", f"replay:{transcript}",
        "--run", "stopped", "--timeout", "2", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0, capsys.readouterr()
    _, turns = turns_of(env, "stopped")
    restarted, interrupted, after = turns[1:4]
    assert restarted.meta["status"] == "timeout" and restarted.meta["stopped"] == "restarted"
    assert restarted.meta["kernel"] == {"restarted": True, "restored_cells": 1}
    assert interrupted.meta["status"] == "timeout" and interrupted.meta["stopped"] == "interrupted"
    assert after.step == 1 and after.error is False and after.outputs[0]["text"].strip().isdigit()


def test_replay_of_an_exported_run_rescores_it(env, capsys, tmp_path):
    with ScriptedServer(exchanges_from_golden(golden("oracle")), model="scripted", key=KEY) as server:
        export = ["--export-transcript", str(tmp_path / "x.jsonl")]
        assert main(run_args(env, server, "orig", "--mode", "oracle", *export)) == 0
    first = capsys.readouterr().out.splitlines()[-1]
    argv = [
        "--task-dir",
        str(REACT / "tasks"),
        "--db",
        env["db"],
        "run",
        "--player",
        f"replay:{tmp_path / 'x.jsonl'}",
    ]
    assert main([*argv, "--mode", "oracle", "--run", "again", "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == first
    _, orig = turns_of(env, "orig")
    _, again = turns_of(env, "again")
    assert [(t.step, t.code, t.error, t.meta["action"]) for t in again] == [
        (t.step, t.code, t.error, t.meta["action"]) for t in orig
    ]
    assert again[1].meta["response"] == orig[1].meta["response"]


def test_reference_runs_in_parallel_and_resumes(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'p.sqlite'}"
    tasks = ["cibench_template/pandas/penguins_raw_tidy", "cibench_template/pandas/tips_ratio_by_group"]
    started = time.monotonic()
    rc = main(["--db", db, "run", "--tasks", *tasks, "--jobs", "2", "--run", "par", "--no-progress"])
    captured = capsys.readouterr()
    assert rc == 0 and captured.out.splitlines()[-1].split()[1:] == ["100.0"] * 5, captured
    assert time.monotonic() - started < 240
    assert main(["--db", db, "run", "--tasks", *tasks, "--jobs", "2", "--run", "par", "--no-progress"]) == 0
    assert captured.err.count(": done") == 2 and "skipped" in capsys.readouterr().err
    assert main(["--db", db, "run", "--tasks", *tasks, "--run", "par", "--mode", "oracle"]) == 2


@pytest.mark.fast
def test_an_open_attempt_of_a_changed_task_is_restarted(tmp_path):
    import asyncio
    import dataclasses

    from cibench_lab.play.attempt import Attempts
    from cibench_lab.players import ReferencePlayer
    from cibench_lab.runs.local import PlayContext, _open_attempt, ensure_run
    from cibench_lab.tasks.library import TaskLibrary

    lib = TaskLibrary.load([REACT / "tasks"])
    attempts = Attempts(Store(f"sqlite:///{tmp_path / 'c.sqlite'}"), lib)
    run_id = ensure_run(attempts, "r", "reference", "e2e")
    ctx = PlayContext(attempts, ReferencePlayer(), "e2e", run_id, tmp_path, 60.0)
    task = lib.get(TASK)
    first, resumed = asyncio.run(_open_attempt(ctx, task, None))
    assert not resumed
    assert asyncio.run(_open_attempt(ctx, task, first)) == (first, True)
    changed = dataclasses.replace(task, content_hash="0" * 64)
    second, resumed = asyncio.run(_open_attempt(ctx, changed, first))
    assert second != first and not resumed
    with attempts.store.session() as s:
        assert s.get(Attempt, first).run_id is None
        assert s.scalar(select(Event.detail).where(Event.attempt_id == first, Event.kind == "abandoned"))
    ctx.pool.shutdown()


def test_oracle_reference_that_kills_the_kernel_is_recorded_once_from_the_new_kernel(env, tmp_path):
    tasks = tmp_path / "tasks"
    shutil.copytree(REACT / "tasks", tasks)
    notebook = tasks / f"{TASK}.ipynb"
    nb = json.loads(notebook.read_text())
    kill_once = (
        "import os\nif not os.path.exists('died_once'):\n"
        "    open('died_once', 'w').close()\n    os._exit(3)\n"
    )
    nb["cells"][3]["source"] = kill_once + "print(len(df))"  # step 2's reference
    notebook.write_text(json.dumps(nb))
    transcript = tmp_path / "t.jsonl"
    write_transcript(
        transcript, [["import pandas as pd\ndf = pd.read_csv('data/react_probe.csv')"], ["print(len(df))"]]
    )
    argv = [
        "--task-dir", str(tasks), "--db", env["db"], "run", "--player", f"replay:{transcript}",
        "--mode", "oracle", "--run", "oracle-death", "--no-progress",
    ]  # fmt: skip
    assert main(argv) == 0
    attempt, _ = turns_of(env, "oracle-death")
    store = Store(env["db"])
    with store.session() as s:
        refs = [  # every reference run recorded (its own table: revision 0006)
            {"step": r.step, "status": r.status, "outputs": r.outputs}
            for r in s.scalars(select(OracleReference).where(OracleReference.attempt_id == attempt.id))
        ]
        restores = [
            e.detail
            for e in s.scalars(select(Event).where(Event.attempt_id == attempt.id, Event.kind == "restore"))
        ]
    store.dispose()
    step2 = [r for r in refs if r["step"] == 1]
    assert len(step2) == 1 and step2[0]["status"] != "dead", step2
    assert step2[0]["outputs"][0]["text"] == "4\n"  # what the new kernel printed: len(df)
    assert any("kernel died" in r["reason"] for r in restores)


def test_an_endpoint_echoing_the_key_leaves_it_out_of_the_run_output(env):
    """The 401 body quotes the key: `cibench-lab run` says HTTP 401 and prints no key."""
    with ScriptedServer([{"reply": "x", "faults": ["401-echo"]}], model="scripted", key=KEY) as server:
        cmd = [sys.executable, "-m", "cibench_lab.cli", *run_args(env, server, "echo")]
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(HERE.parent)},
        )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert (
        "incomplete: scripted: HTTP 401: " in proc.stderr and "Incorrect API key provided: ***" in proc.stderr
    )
    assert KEY not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
