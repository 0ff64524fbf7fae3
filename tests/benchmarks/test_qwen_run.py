"""`cibench-lab run --player openai:MODEL` on Qwen benchmark tasks, then `report`: one item of each
family (general, math, GSM8K math, visualization hard and easy) played against the scripted
OpenAI-compatible server on real sandboxed kernels, and the report's Qwen table checked against
numbers computed by hand.  (~25 s: five kernels, four executable-rate re-runs.)
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from openai_server import ScriptedServer
from sqlalchemy import select

from cibench_lab.cli import main
from cibench_lab.models.qwen_react import chat_messages, item_prompt
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, StepRow, Turn
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.qwen import qwen_item

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
TASKS = [
    "cibench_qwen/qwen-general/ci_0004",
    "cibench_qwen/qwen-math/ci_0006",
    "cibench_qwen/qwen-math/gsm8k_0001",
    "cibench_qwen/qwen-vis/ci_0001",
    "cibench_qwen/qwen-vis/ci_0002",
]


def act(code: str, thought: str = "I will run code.") -> str:
    return f"Thought: {thought}\nAction: code_interpreter\nAction Input:\n```py\n{code}\n```\n"


GENERAL = act(
    "o = pd.read_csv('orders.csv')\ni = pd.read_csv('items.csv')\n"
    "m = o.merge(i, on='item')\nm.to_csv('merged.csv', index=False)\nprint(len(m))"
)
MATH = act("x = symbols('x')\ndef solution():\n    print(solve(x**2 - 5*x + 6, x))")
GSM_1 = act("print(3 * 12 - 5)")
GSM_2 = "Thought: I now know the final answer\nFinal Answer: Tom has 31 apples left."
HARD = act("df = pd.read_csv('sales_2023.csv')\ndf.plot.bar(x='region', y='sales')\nplt.show()")
EASY = act("%matplotlib inline\nplt.plot(df['day'], df['temp'])\nplt.show()")
FAIL = act("print(df['rain'])")  # a KeyError: the play stops
OUT = "stdout:\n\n```\n{}\n\n```"  # a stream's observation (its newline kept, as the original's)


def exchanges(lib: TaskLibrary) -> list[dict]:
    """The requests the original's loop makes, each with its reply (two plays at once: matched by
    their messages); the two whose prompt holds an image's name are served last, in any order."""

    def first(task: str, reply: str, text: str = "") -> dict:
        prompt = item_prompt(qwen_item(lib.get(task))) + text
        return {"messages": chat_messages(prompt), "reply": reply}

    gsm_text = GSM_1.rstrip() + "\nObservation: " + OUT.format(31) + "\nThought:"
    return [
        first(TASKS[0], GENERAL),
        first(TASKS[1], MATH),
        first(TASKS[2], GSM_1),
        first(TASKS[2], GSM_2, gsm_text),
        first(TASKS[3], HARD),
        first(TASKS[4], EASY),
        {"reply": FAIL},
        {"reply": FAIL},
    ]


@pytest.fixture
def played(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    for var in ("OPENAI_BASE_URL", "CIBENCH_LAB_JUDGE_MODEL", "CIBENCH_LAB_JUDGE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    tasks, db = tmp_path / "tasks", f"sqlite:///{tmp_path / 'runs.sqlite'}"
    assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
    server = ScriptedServer(exchanges(TaskLibrary.load([tasks]))).start()
    try:
        args = ["--task-dir", str(tasks), "--db", db, "run", "--player", "openai:scripted"]
        args += ["--base-url", server.base_url, "--tasks", *TASKS, "--run", "q", "--no-progress"]
        assert main([*args, "--jobs", "2", "--kernel-pool", "1"]) == 0
    finally:
        server.stop()
    server.check()
    return {"tasks": tasks, "db": db, "server": server, "summary": capsys.readouterr().out}


def _turns(db: str) -> dict[str, tuple[str, list[Turn]]]:
    store = Store(db)
    with store.session() as s:
        out = {}
        for a in s.scalars(select(Attempt)):
            step = s.scalar(select(StepRow).where(StepRow.attempt_id == a.id))
            turns = s.scalars(select(Turn).where(Turn.attempt_id == a.id).order_by(Turn.number)).all()
            out[a.task_id] = (step.outcome, list(turns))
        s.expunge_all()
    store.dispose()
    return out


def test_qwen_tasks_play_as_the_original_and_report_its_table(played, capsys, monkeypatch):
    runs = _turns(played["db"])
    outcomes = {t: (o, len(ts)) for t, (o, ts) in runs.items()}
    assert outcomes == {
        TASKS[0]: ("out_of_turns", 1),  # general: 1 call
        TASKS[1]: ("out_of_turns", 1),  # a benchmark math item: 1 call
        TASKS[2]: ("answered", 2),  # GSM8K: a call, then a final answer
        TASKS[3]: ("stopped", 2),  # hard: a plot, a KeyError
        TASKS[4]: ("stopped", 3),  # easy: the prior turn, a plot, a KeyError
    }
    general = runs[TASKS[0]][1][0]
    assert "shop/orders.csv" in general.code and "shop/items.csv" in general.code  # names rewritten
    assert general.meta["observation"] == "stdout:\n\n```\n2\n\n```"  # the stream's newline kept
    assert runs[TASKS[1]][1][0].code.endswith("\nsolution()")
    assert runs[TASKS[1]][1][0].meta["observation"] == "stdout:\n\n```\n[2, 3]\n\n```"

    # every request matched its expected messages (server.check); the stop words went along
    assert all(r["body"]["stop"] == ["Observation:", "Observation:\n"] for r in played["server"].requests)

    # the easy item: its prior turn ran first (the model was not asked), its observation stays out
    # of the prompt, which continues the query's own assistant turn
    prior, plot, failed = runs[TASKS[4]][1]
    assert prior.meta["prior_turn"] and "weather/weather.csv" in prior.code
    assert prior.meta["observation"].startswith("stdout:\n\n```\n   day  temp\n0    1  12.5")
    assert prior.meta["qwen_text"] == ""
    assert plot.meta["observation"].startswith("![fig-001](/tmp/workspace/")
    assert "Traceback" in failed.meta["observation"] and "KeyError" in failed.meta["observation"]

    hard = runs[TASKS[3]][1][0].meta["observation"]
    assert hard.startswith("![fig-001](/tmp/workspace/") and hard.endswith(".png)")

    hard_fail = runs[TASKS[3]][1][1].meta["observation"]
    assert "KeyError" in hard_fail

    # the run's closing summary is the Qwen table (no judge in the run: Visualization not graded)
    summary = played["summary"]
    assert "run q · openai:scripted · e2e · profile cibench" in summary
    assert "exec Visualization" in summary and "acc Visualization-Easy" in summary
    assert not any(line.split()[:2] == ["task", "tool"] for line in summary.splitlines())  # CIBench's
    assert qwen_rows(summary)[0] == [
        "q",
        "100.0 [100.0–100.0]",
        "50.0 [0.0–100.0]",
        "100.0 [100.0–100.0] (not comparable)",
        "100.0 [100.0–100.0]",
        "not graded",
        "not graded",
    ]

    # the report, with a judge: both items' images came before any error, so both are judged; the
    # original counts a reply containing "right" (so "not right" too)
    table = judged_report(played, "q", ["right", "It is not right."], capsys, monkeypatch)
    # exec: math 1/1; visualization 1/2 (the easy item's `%matplotlib inline` is no Python for
    # exec()); general 1/1, measured without network; accuracy: GSM8K 1/1 ("31 apples")
    assert qwen_rows(table) == [
        [
            "q",
            "100.0 [100.0–100.0]",
            "50.0 [0.0–100.0]",  # 1 of 2 resamples to 0, 50 or 100
            "100.0 [100.0–100.0] (not comparable)",
            "100.0 [100.0–100.0]",
            "100.0 [100.0–100.0]",
            "100.0 [100.0–100.0]",
        ],
        ["q", "1/1, 0 missing", "1/2, 0 missing", "1/1, 0 missing", "1/1", "1/1", "1/1"],
    ]
    assert "not comparable: the code ran without network" in table

    # CSV, without a judge: one row per cell; Visualization accuracy not graded, General marked
    monkeypatch.delenv("CIBENCH_LAB_JUDGE_MODEL")
    args = ["--task-dir", str(played["tasks"]), "--db", played["db"], "report", "q", "--format", "csv"]
    assert main(args) == 0
    cells = {(r["section"], r["column"]): r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    general, hard = cells["executable", "general"], cells["accuracy", "visualization-hard"]
    assert (general["n"], general["value"], general["note"]) == ("1", "100.0", "not comparable")
    assert (hard["n"], hard["value"], hard["ci_lo"], hard["note"]) == ("1", "", "", "not graded")

    # --plot: the table's cells as bars (Visualization-Hard not graded: no bar, labelled so)
    png = played["tasks"].parent / "qwen.png"
    args = ["--task-dir", str(played["tasks"]), "--db", played["db"], "report", "q", "--plot", str(png)]
    assert main(args) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # the export's attempts table: each item's own measures per profile, beside CIBench's
    out = played["tasks"].parent / "export"
    assert main(["--db", played["db"], "export", "--format", "csv", str(out)]) == 0
    with open(out / "attempts.csv", encoding="utf-8") as f:
        attempts = {r["task_id"]: r for r in csv.DictReader(f)}
    measures = ("executable", "accuracy", "accuracy_of", "not_graded")
    got = {task: tuple(attempts[task][f"fair_qwen_{m}"] for m in measures) for task in TASKS}
    assert got == {
        TASKS[0]: ("100.0", "", "", "0"),
        TASKS[1]: ("100.0", "", "", "0"),  # no gold: executable only
        TASKS[2]: ("100.0", "100.0", "math", "0"),
        TASKS[3]: ("0.0", "", "visualization", "1"),  # its last run raised; no judge in the run: not graded
        TASKS[4]: ("0.0", "", "visualization", "1"),
    }
    assert [attempts[t]["cibench_qwen_not_graded"] for t in TASKS] == ["0", "0", "0", "1", "1"]


def judged_report(played: dict, run: str, replies: list[str], capsys, monkeypatch) -> str:
    """``report RUN``'s table with a judge on 127.0.0.1 giving ``replies`` in turn (each asked for)."""
    capsys.readouterr()
    judge = ScriptedServer([{"reply": r} for r in replies], max_tokens=300).start()
    try:
        monkeypatch.setenv("CIBENCH_LAB_JUDGE_MODEL", "judge")
        monkeypatch.setenv("CIBENCH_LAB_JUDGE_BASE_URL", judge.base_url)
        assert main(["--task-dir", str(played["tasks"]), "--db", played["db"], "report", run]) == 0
    finally:
        judge.stop()
    judge.check()
    return capsys.readouterr().out


def qwen_rows(table: str, run: str = "q") -> list[list[str]]:
    head = "|" + run.replace(" ", "") + "|"
    rows = [line for line in table.splitlines() if line.replace(" ", "").startswith(head)]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows]
