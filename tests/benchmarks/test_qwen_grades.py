"""What a person's Qwen grades say, one verdict everywhere (tests/fixtures/qwen/benchmark).

A GSM8K gold ``#### 2,100`` read by each profile's own rule (``qwen``: the original's pattern, which
reads it as 2; ``fair``: 2100); a run that raised says so first and no number is read from its
traceback; a visualization step without a judge is neither passed nor missed in the attempt list,
the summary's Qwen measures, the class view and the exports; a GSM8K row's answer is its only
reference; the CLI's words.  Kernel-free (~1 s) but for the last test, which plays two items in the
lab (~15 s).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import server_config

from cibench_lab.benchmarks.qwen.results import output_row
from cibench_lab.cli import main
from cibench_lab.cli.export.values import grade_columns
from cibench_lab.cli.export.wording import score
from cibench_lab.grading import summarize
from cibench_lab.grading.qwen.answer import extract_answer, fair_correct, fair_gold, gold_answer
from cibench_lab.grading.qwen.lab import NO_JUDGE, grade_qwen, not_graded
from cibench_lab.grading.turn import TurnOutput
from cibench_lab.record.worktime import Clock
from cibench_lab.store.tables import Attempt, StepRow
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.qwen import qwen_item
from cibench_lab.views.classroom import attempt_row, pass_rates

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
COMMA = "cibench_qwen/qwen-math/gsm8k_0003"  # gold "#### 2,100"
HARD = "cibench_qwen/qwen-vis/ci_0001"
GENERAL = "cibench_qwen/qwen-general/ci_0004"
PNG = "iVBORw0KGgo="
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "<ipython-input-3>", line 1, in <module>',
    "ZeroDivisionError: division by zero",
]


@pytest.fixture(scope="module")
def qwen_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("qwen-tasks")
    assert main(["tasks", "import", str(BENCH), "--into", str(root)]) == 0
    return root


@pytest.fixture(scope="module")
def lib(qwen_root) -> TaskLibrary:
    return TaskLibrary.load([qwen_root])


def _printed(text: str) -> TurnOutput:
    return TurnOutput("print(...)", [{"output_type": "stream", "name": "stdout", "text": text}])


def _raised(ename: str, before: list[dict] | None = None) -> TurnOutput:
    error = {"output_type": "error", "ename": ename, "evalue": "x", "traceback": TRACEBACK}
    return TurnOutput("x", [*(before or []), error], True, "error")


def _figure() -> TurnOutput:
    return TurnOutput("plt.show()", [{"output_type": "display_data", "data": {"image/png": PNG}}])


def _grades(step, turns) -> dict[str, dict]:
    return {p: grade_qwen(step, turns, p, None).as_dict() for p in ("cibench", "fair")}


@pytest.mark.fast
def test_each_profile_reads_the_gold_by_its_own_rule(lib):
    step = lib.get(COMMA).steps[0]
    gold = step.benchmark_item.answer
    assert gold.endswith("#### 2,100")
    assert gold_answer(gold) == 2 and fair_gold(gold) == 2100  # the original's pattern reads 2,100 as 2
    plain = _grades(step, [_printed("2100\n")])
    assert plain["fair"]["passed"] is True and plain["fair"]["detail"] == "answer read: 2100 · right"
    assert plain["cibench"]["passed"] is False and plain["cibench"]["detail"] == "answer read: 2100 · wrong"
    final = _grades(step, [_printed("Final Answer: 2,100\n")])
    assert final["fair"]["detail"] == "answer read: 2100 · right"
    assert final["cibench"]["detail"] == "answer read: 2 · right"  # the quirk, on both sides: 2 == 2
    assert fair_correct("Final Answer: 2,100 eggs", gold) and not fair_correct("Final Answer: 2", gold)


@pytest.mark.fast
def test_a_run_that_raised_says_so_first_and_no_number_is_read_from_its_traceback(lib):
    gsm = lib.get(COMMA).steps[0]
    for grade in _grades(gsm, [_raised("ZeroDivisionError")]).values():
        assert grade["detail"] == "raised ZeroDivisionError · no answer read · wrong"
        assert grade["passed"] is False and grade["score"] == 0.0 and grade["exec"] == 0.0
    vis = lib.get(HARD).steps[0]
    for grade in _grades(vis, [_raised("KeyError")]).values():  # nothing drawn: nothing to judge
        assert grade["detail"] == "raised KeyError · no figure to judge · wrong"
        assert not not_graded(grade) and grade["passed"] is False
    later = _grades(vis, [_figure(), _raised("KeyError")])["fair"]  # an earlier run's figure is judged
    assert later["detail"] == f"raised KeyError · {NO_JUDGE}" and not_graded(later)
    nothing = _grades(vis, [_printed("loaded\n")])["fair"]
    assert nothing["detail"] == "no figure to judge · wrong" and not not_graded(nothing)
    general = _grades(lib.get(GENERAL).steps[0], [_raised("KeyError")])["cibench"]
    assert general["detail"] == "raised KeyError · not executable"
    timed_out = TurnOutput("x", [], True, "timeout")
    assert grade_qwen(gsm, [timed_out], "fair", None).detail == "timed out · no answer read · wrong"
    # a headless run's table stays the original's: its completion holds the observation's traceback
    completion = "Action: code_interpreter\nObservation: error:\n\n```\n" + "\n".join(TRACEBACK) + "\n```"
    row = output_row(qwen_item(lib.get(COMMA)), completion)
    assert extract_answer(completion) == 1 and row["acc"] is False  # 'line 1,' read as the original reads it


@pytest.mark.fast
def test_fair_reads_the_answer_from_what_the_run_printed_never_its_warnings(lib):
    warned = TurnOutput("print(...)", [
        {"output_type": "stream", "name": "stdout", "text": "2,100\n"},
        {"output_type": "stream", "name": "stderr", "text": "<ipython-input-2>:3: FutureWarning: line 3\n"},
    ])  # fmt: skip
    fair = grade_qwen(lib.get(COMMA).steps[0], [warned], "fair", None)
    assert (fair.detail, fair.passed) == ("answer read: 2100 · right", True)
    assert _grades(lib.get(COMMA).steps[0], [warned])["cibench"]["exec"] == 1.0  # a warning is no error


@pytest.mark.fast
def test_the_summary_holds_the_familys_measures(lib):
    gsm = summarize([grade_qwen(lib.get(COMMA).steps[0], [_printed("2100\n")], "fair", None).as_dict()])
    assert gsm["qwen"] == {
        "executable": 100.0,
        "accuracy": 100.0,
        "accuracy_of": "math",
        "steps": 1,
        "not_graded": 0,
    }
    vis = summarize([_grades(lib.get(HARD).steps[0], [_figure()])["fair"]])["qwen"]
    assert (vis["accuracy"], vis["accuracy_of"], vis["not_graded"]) == (None, "visualization", 1)
    general = summarize([_grades(lib.get(GENERAL).steps[0], [_raised("KeyError")])["fair"]])["qwen"]
    assert (general["executable"], general["accuracy"], general["accuracy_of"]) == (0.0, None, None)
    gave_up = summarize([_grades(lib.get(COMMA).steps[0], [])["fair"]])["qwen"]
    assert (gave_up["accuracy"], gave_up["accuracy_of"]) == (0.0, "math")  # no code: wrong, not unmeasured


@pytest.mark.fast
def test_not_graded_is_neither_passed_nor_missed_in_the_class_view_and_exports(lib):
    none = _grades(lib.get(HARD).steps[0], [_figure()])
    right = _grades(lib.get(COMMA).steps[0], [_printed("2100\n")])
    now = dt.datetime(2025, 1, 1)
    rows = [StepRow(index=0, grade=none, settled_at=now, opened_at=now)]
    row = Attempt(id="a", task_id=HARD, status="done", current_step=0, n_steps=1, created_at=now, settings={})
    cell = attempt_row(row, "ann", "t", rows, Clock(), "fair")
    assert (cell["passed"], cell["not_graded"], cell["score"]) == (0, 1, None)
    rates = pass_rates([(HARD, rows), (COMMA, [StepRow(index=0, grade=right, settled_at=now)])], "fair")
    assert [(r["passed"], r["not_graded"]) for r in rates] == [(1, 0), (0, 1)]
    columns = grade_columns(none, ("score", "passed"))
    assert columns["fair_passed"] is None and columns["cibench_passed"] is None  # not graded: empty
    assert grade_columns(right, ("passed",))["fair_passed"] is True
    assert score(none["fair"]) == NO_JUDGE and score(right["fair"]) == "1.00 passed"


@pytest.mark.fast
def test_the_cli_counts_one_step_and_shows_no_reference(qwen_root, capsys):
    assert main(["--task-dir", str(qwen_root), "tasks", "list"]) == 0
    listed = capsys.readouterr().out
    assert "  1 step  " in listed and "1 steps" not in listed
    assert main(["--task-dir", str(qwen_root), "tasks", "show", "cibench_qwen/qwen-vis/ci_0002"]) == 0
    shown = capsys.readouterr().out
    assert "(1 step)" in shown and "Thought:reference" not in shown
    assert "Thought:\nreference: none (a Qwen benchmark item has no reference code)" in shown


@pytest.fixture
def jp_server_config(tmp_path, qwen_root):
    return server_config(tmp_path, [qwen_root], turn_timeout=60.0)  # the lab's default profile: fair


async def test_one_verdict_in_the_attempt_its_summary_and_the_attempt_list(start_attempt, api):
    gsm = await start_attempt(COMMA)
    code, turn = await gsm.turn(0, "print(1050 * 2)")
    assert code == 200 and turn["grade"]["detail"] == "answer read: 2100 · right", turn
    code, _ = await gsm.next(0)
    assert code == 200
    code, view = await api("GET", f"attempts/{gsm.attempt['id']}")
    step = view["steps"][0]
    assert view["profile"] == "fair" and step["grade"]["passed"] is True
    assert view["summary"]["benchmark_measures"]["accuracy"] == 100.0  # fair's verdict
    # the original's: 2100 is not its 2
    assert view["summaries"]["cibench"]["benchmark_measures"]["accuracy"] == 0
    answer = step["reference"]["output"]
    assert step["reference"] == {"code": "", "thought": "", "output": answer, "image": None}
    assert answer.endswith("#### 2,100")  # the answer, once settled

    vis = await start_attempt(HARD)
    code, turn = await vis.turn(0, "import pandas as pd\npd.read_csv('sales/sales_2023.csv')['nope']")
    assert turn["grade"]["detail"].startswith("raised KeyError · "), turn
    code, turn = await vis.turn(0, "plt.plot([1, 2])\nplt.show()")
    assert turn["grade"]["detail"] == NO_JUDGE, turn
    await vis.next(0)
    code, view = await api("GET", f"attempts/{vis.attempt['id']}")
    assert "reference" not in view["steps"][0] and view["summary"]["benchmark_measures"]["not_graded"] == 1
    code, rows = await api("GET", "attempts")
    by_id = {r["id"]: r for r in rows}
    assert (by_id[gsm.attempt["id"]]["passed"], by_id[gsm.attempt["id"]]["not_graded"]) == (1, 0)
    assert (by_id[vis.attempt["id"]]["passed"], by_id[vis.attempt["id"]]["not_graded"]) == (0, 1)


def test_the_rules_version_is_recorded_per_benchmark(lib):
    """Qwen's rules moved to version 2; a CIBench attempt still records version 1, so it stays
    comparable with the CIBench attempts recorded before."""
    from cibench_lab.benchmarks import benchmark_of
    from cibench_lab.grading.profile import VERSIONS
    from cibench_lab.grading.qwen.rules import QWEN_VERSIONS
    from cibench_lab.kernels.environment import attempt_environment
    from cibench_lab.tasks.library import builtin_dir

    qwen_task = lib.get("cibench_qwen/qwen-vis/ci_0002")
    cibench_task = TaskLibrary.load([builtin_dir()]).get("cibench_template/pandas/penguins_raw_tidy")
    assert (
        attempt_environment(qwen_task, benchmark_of(qwen_task).profile_versions())["profiles"]
        == QWEN_VERSIONS
        == {"cibench": 2, "fair": 2}
    )
    assert (
        attempt_environment(cibench_task, benchmark_of(cibench_task).profile_versions())["profiles"]
        == VERSIONS
        == {"cibench": 1, "fair": 3}
    )
