"""`cibench-lab export --format inspect`: runs and a study as Inspect AI eval logs, read back with
``inspect_ai.log.read_eval_log`` and ``inspect_ai.analysis`` (data: tests/exportdb.py plus a model's
run over two splits, no kernel)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exportdb import RUN_ENV, STUDY, build
from inspect_ai.log import EvalLog, read_eval_log
from rules_task import EN, ZH, figure, png, stdout

from cibench_lab.cli import main
from cibench_lab.grading import TurnOutput
from cibench_lab.grading.summary import METRICS
from cibench_lab.play.attempt import NewAttempt
from cibench_lab.play.settings import PlaySettings
from cibench_lab.play.turns import TurnRecord
from cibench_lab.runs.local import ensure_run
from cibench_lab.store.pseudonym import pseudonym

pytestmark = pytest.mark.fast

MODEL = "openai:tiny"
TOKENS = {"prompt": 100, "completion": 20, "total": 120}


def model_run(attempts) -> list[str]:
    """Run ``m1`` of a model over the English and the Chinese task: a wrong number, a wrong plot,
    each turn's tokens recorded."""
    run_id = ensure_run(attempts, "m1", MODEL, "e2e")
    ids = []
    for task_id in (EN, ZH):
        task = attempts.library.get(task_id)
        new = NewAttempt(task, "e2e", MODEL, f"player:{MODEL}", PlaySettings(), RUN_ENV, run_id=run_id)
        a = attempts.create(new)
        meta = {"model": "tiny-1", "tokens": TOKENS, "response": "Thought: let me try."}
        turns = [
            TurnOutput(task.steps[0].code, list(task.steps[0].outputs)),
            TurnOutput("print(41)", [stdout("41")]),
            TurnOutput("plt.bar([1], [2])", [figure(png((0, 0, 0)))]),
            TurnOutput("x = 1", []),
        ]
        for step, turn in enumerate(turns):
            attempts.record_turn(a, step, TurnRecord(turn, meta=meta))
        ids.append(a)
    return ids


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    b = build(tmp_path_factory.mktemp("inspect-db"))
    b.ids["m1_en"], b.ids["m1_zh"] = model_run(b.attempts)
    return b


def cli(built, *args: str) -> int:
    return main(["--db", built.db, "--task-dir", str(built.root), *args])


def export(built, folder: Path, *options: str) -> int:
    return cli(built, "export", "--format", "inspect", *options, str(folder))


def logs(folder: Path) -> list[EvalLog]:
    return [read_eval_log(str(p)) for p in sorted(folder.iterdir())]


def report(built, capsys, *args: str) -> dict:
    capsys.readouterr()
    assert cli(built, "report", *args, "--format", "json") == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def runs(built, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inspect-runs")
    assert export(built, folder, "r1", "m1") == 0
    return folder


def by_model(folder: Path) -> dict[tuple[str, str], EvalLog]:
    return {(log.eval.model, log.eval.task_args["split"]): log for log in logs(folder)}


def test_a_log_per_run_and_split_a_sample_per_attempt(runs, built):
    found = by_model(runs)
    assert set(found) == {
        ("cibench_lab/reference", "cibench_template"),
        ("openai/tiny", "cibench_template"),
        ("openai/tiny", "cibench_template_chinese"),
    }
    for (_, split), log in found.items():
        assert log.status == "success" and log.eval.task == "cibench_lab/cibench"
        assert log.eval.task_args == {"split": split, "mode": "e2e"}
        assert log.samples is not None and len(log.samples) == 1
        assert log.results is not None and log.results.total_samples == 1
    sample = found["openai/tiny", "cibench_template_chinese"].samples[0]  # type: ignore[index]
    assert sample.id == ZH and sample.metadata["attempt_id"] == built.ids["m1_zh"]


@pytest.mark.parametrize("profile", ["cibench", "fair"])
def test_scores_equal_the_reports_under_the_profile(built, capsys, tmp_path, profile):
    assert export(built, tmp_path, "--profile", profile, "r1", "m1") == 0
    rep = report(built, capsys, "r1", "m1", "--profile", profile)
    players = {"reference": "cibench_lab/reference", MODEL: "openai/tiny"}
    found = by_model(tmp_path)
    for run in rep["runs"]:
        for split, part in run["splits"].items():
            log = found[players[run["player"]], split]
            assert log.eval.metadata is not None and log.eval.metadata["profile"] == profile
            (lib,) = part["libs"]  # one task per library: the report's library is the task
            (sample,) = log.samples or []
            scores = {k: s.value for k, s in (sample.scores or {}).items()}
            want = {m: part["libs"][lib][m] for m in METRICS if part["libs"][lib][m] is not None}
            assert scores == want, (run["run"], split)
            assert log.results is not None
            micro = {s.name: s.metrics["micro"].value for s in log.results.scores}
            assert micro == {m: part["total"][m] for m in METRICS if part["total"][m] is not None}
    assert found["openai/tiny", "cibench_template"].samples[0].scores["num"].value == 0.0  # type: ignore


def test_messages_are_the_instructions_the_code_and_its_outputs(runs, built):
    log = by_model(runs)["openai/tiny", "cibench_template"]
    (sample,) = log.samples or []
    task = built.attempts.library.get(EN)
    users = [m for m in sample.messages if m.role == "user"]
    assert [m.text for m in users] == [s.instruction for s in task.steps]
    calls = [m.tool_calls[0] for m in sample.messages if m.role == "assistant" and m.tool_calls]
    assert [c.arguments["code"] for c in calls] == [
        task.steps[0].code,
        "print(41)",
        "plt.bar([1], [2])",
        "x = 1",
    ]
    tools = [m for m in sample.messages if m.role == "tool"]
    assert tools[1].text.strip() == "41" and tools[1].metadata["step"] == 1
    assert any(getattr(c, "type", "") == "image" for c in tools[2].content)  # the plot
    assert sample.messages[1].text == "Thought: let me try."  # the model's reply as recorded
    assert sample.target == [s.code for s in task.steps]


def test_usage_timings_and_environment(runs, built):
    found = by_model(runs)
    (sample,) = found["openai/tiny", "cibench_template"].samples or []
    usage = sample.model_usage["openai/tiny"]
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (400, 80, 480)
    assert found["openai/tiny", "cibench_template"].stats.model_usage["openai/tiny"].total_tokens == 480
    assert sample.metadata["environment"] == RUN_ENV
    assert sample.metadata["settings"]["max_turn"] == PlaySettings().max_turn
    assert sample.metadata["run"] == "m1" and sample.metadata["status"] == "done"
    assert [s["outcome"] for s in sample.metadata["steps"]] == ["passed"] * 4
    assert sample.started_at and sample.completed_at and sample.total_time is not None
    assert sample.working_time is not None and sample.working_time >= 0
    (ref,) = found["cibench_lab/reference", "cibench_template"].samples or []
    assert ref.model_usage == {}  # the reference player asks no model


def test_a_study_is_a_log_per_participant_under_pseudonyms(built, tmp_path, capsys):
    assert export(built, tmp_path, "--study", STUDY) == 0
    assert "exported 2 attempts" in capsys.readouterr().out
    found = {log.eval.model: log for log in logs(tmp_path)}
    alice, bob = (f"human/{pseudonym(built.salt, n)}" for n in ("alice", "bob"))
    assert set(found) == {alice, bob}
    (done,) = found[alice].samples or []
    assert done.metadata["study"] == STUDY and done.metadata["participant"] == alice.removeprefix("human/")
    assert done.scores is not None and done.scores["text"].value == 100.0 and done.scores["num"].value == 0.0
    (quit_,) = found[bob].samples or []
    assert quit_.metadata["status"] == "quit" and not quit_.scores
    assert found[bob].results is not None and found[bob].results.completed_samples == 0
    for path in tmp_path.iterdir():
        assert b"alice" not in path.read_bytes() and b"bob" not in path.read_bytes()
    assert export(built, tmp_path / "names", "--study", STUDY, "--real-names") == 0
    assert {log.eval.model for log in logs(tmp_path / "names")} == {"human/alice", "human/bob"}


def test_inspect_analysis_reads_them_into_data_frames(runs, built):
    import pyarrow  # noqa: F401  (inspect_ai.analysis's own need: the inspect and test extras install it)
    from inspect_ai.analysis import evals_df, samples_df

    samples = samples_df(str(runs))
    assert len(samples) == 3
    row = samples[samples["id"] == ZH].iloc[0]
    assert row["score_num"] == 0.0 and row["metadata_run"] == "m1" and row["model_usage"]
    evals = evals_df(str(runs))
    assert sorted(evals["model"]) == ["cibench_lab/reference", "openai/tiny", "openai/tiny"]
    assert set(evals["task_arg_split"]) == {"cibench_template", "cibench_template_chinese"}
    assert "score_num_micro" in evals.columns


def test_json_logs_and_usage_errors(built, tmp_path, capsys):
    assert export(built, tmp_path / "j", "--run", "r1", "--log-format", "json") == 0
    (path,) = (tmp_path / "j").iterdir()
    assert path.suffix == ".json" and read_eval_log(str(path)).eval.model == "cibench_lab/reference"
    capsys.readouterr()
    for options, named in [
        ([], "export --format inspect takes RUN ... OUT or --study ID OUT"),
        (["nope"], "no run named 'nope'"),
        (["--study", "nope"], "no study 'nope'"),
    ]:
        assert export(built, tmp_path / "bad", *options) == 2, options
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: ") and named in err and "\n" not in err, err
    assert not (tmp_path / "bad").exists()
