"""`cibench-lab run --player openai:MODEL --protocol tools` on Qwen benchmark tasks, then `report`:
native tool calling against the scripted OpenAI-compatible server on real sandboxed kernels — the
exact messages and tools each request carries, the item's call limit and stop rule, an easy item's
prior turn as an already-made call — and the Qwen table, marked as not the original's protocol.
(~30 s: five kernels, four executable-rate re-runs.)
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from openai_server import ScriptedServer
from test_qwen_run import BENCH, OUT, _turns, judged_report, qwen_rows

from cibench_lab.cli import main

TASKS = [
    "cibench_qwen/qwen-general/ci_0004",
    "cibench_qwen/qwen-math/ci_0006",
    "cibench_qwen/qwen-math/gsm8k_0001",
    "cibench_qwen/qwen-vis/ci_0001",
    "cibench_qwen/qwen-vis/ci_0002",
]
SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "code_interpreter",
            "description": "代码解释器，可用于执行Python代码。",
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "待执行的代码"}},
                "required": ["code"],
            },
        },
    }
]


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def calls(*codes: str, content: str | None = None, tag: str = "c") -> dict:
    """An assistant reply calling the code interpreter once per code."""
    made = [
        {
            "id": f"{tag}{i}",
            "type": "function",
            "function": {"name": "code_interpreter", "arguments": json.dumps({"code": code})},
        }
        for i, code in enumerate(codes)
    ]
    return {"role": "assistant", "content": content, "tool_calls": made}


def answer(call_id: str, text: str) -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


GENERAL = calls(
    "o = pd.read_csv('orders.csv')\ni = pd.read_csv('items.csv')\n"
    "m = o.merge(i, on='item')\nm.to_csv('merged.csv', index=False)\nprint(len(m))",
    tag="g",
)
MATH = calls("x = symbols('x')\ndef solution():\n    print(solve(x**2 - 5*x + 6, x))", tag="m")
GSM_CALLS = calls("print(3 * 12 - 5)", "print(0)", content="I will compute it.", tag="k")
GSM_END = {"role": "assistant", "content": "Tom has 31 apples left."}
HARD = calls("df = pd.read_csv('sales_2023.csv')\ndf.plot.bar(x='region', y='sales')\nplt.show()", tag="h")
FAIL = calls("print(df['rain'])", tag="f")  # a KeyError: the play stops
EASY = [calls("print(df['temp'].max())", tag="e"), calls("print(len(df))", tag="n")]
EASY_PLOT = calls("plt.plot(df['day'], df['temp'])\nplt.show()", tag="p")
HEAD = "   day  temp\n0    1  12.5\n1    2  14.0\n2    3  13.2\n3    4  15.8\n"
PRIOR_CODE = "import pandas as pd\ndf = pd.read_csv('weather/weather.csv')\nprint(df.head())"
PRIOR = [
    calls(PRIOR_CODE, content="I should load the file first.", tag="x"),
    answer("prior-turn", OUT.format(HEAD.rstrip("\n"))),
]
PRIOR[0]["tool_calls"][0]["id"] = "prior-turn"


def reply(message: dict) -> dict:
    return {k: v for k, v in message.items() if k != "role"}


def exchanges() -> list[dict]:
    """Every request the tools player makes, with its exact messages; the one after the hard item's
    plot (whose observation names an image) is served last and checked after the run."""
    general = [
        SYSTEM,
        user(
            "[Upload file orders.csv, items.csv]"
            "Join the two tables on item and save the result as merged.csv."
        ),
    ]
    math = [SYSTEM, user("Solve x**2 - 5*x + 6 = 0 and print the roots.")]
    gsm = [SYSTEM, user("Tom has 3 boxes of 12 apples and eats 5. How many apples are left?")]
    gsm_2 = [
        *gsm,
        GSM_CALLS,
        answer("k0", OUT.format(31)),
        answer("k1", "Not run: only the first tool call of a reply is run."),
    ]
    hard = [SYSTEM, user("[Upload file sales_2023.csv]Draw a bar chart of the sales of each region.")]
    easy = [
        SYSTEM,
        user("[Upload file weather.csv]Plot the temperature of each day as a line chart."),
        *PRIOR,
    ]
    easy_2 = [*easy, EASY[0], answer("e0", OUT.format(15.8))]
    easy_3 = [*easy_2, EASY[1], answer("n0", OUT.format(4))]
    tools = ["code_interpreter"]
    return [
        {"messages": general, "tools": tools, "reply": reply(GENERAL)},
        {"messages": math, "tools": tools, "reply": reply(MATH)},
        {"messages": gsm, "tools": tools, "reply": reply(GSM_CALLS)},
        {"messages": gsm_2, "tools": tools, "reply": reply(GSM_END)},
        {"messages": hard, "tools": tools, "reply": reply(HARD)},
        {"messages": easy, "tools": tools, "reply": reply(EASY[0])},
        {"messages": easy_2, "tools": tools, "reply": reply(EASY[1])},
        {"messages": easy_3, "tools": tools, "reply": reply(EASY_PLOT)},
        {"reply": reply(FAIL)},
    ]  # fmt: skip


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("qwen-tools")
    tasks, db = tmp / "tasks", f"sqlite:///{tmp / 'runs.sqlite'}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", "sk-test")
        for var in ("OPENAI_BASE_URL", "CIBENCH_LAB_JUDGE_MODEL", "CIBENCH_LAB_JUDGE_BASE_URL"):
            mp.delenv(var, raising=False)
        assert main(["tasks", "import", str(BENCH), "--into", str(tasks)]) == 0
        server = ScriptedServer(exchanges()).start()
        try:
            args = ["--task-dir", str(tasks), "--db", db, "run", "--player", "openai:scripted"]
            args += ["--protocol", "tools", "--base-url", server.base_url, "--tasks", *TASKS]
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert main([*args, "--run", "t", "--no-progress", "--jobs", "2"]) == 0
        finally:
            server.stop()
    server.check()
    return {"tasks": tasks, "db": db, "server": server, "summary": out.getvalue()}


def test_qwen_tasks_play_with_tool_calls(played):
    runs = _turns(played["db"])
    assert {t: (o, len(ts)) for t, (o, ts) in runs.items()} == {
        TASKS[0]: ("out_of_turns", 1),  # general: 1 call
        TASKS[1]: ("out_of_turns", 1),  # a benchmark math item: 1 call
        TASKS[2]: ("answered", 2),  # GSM8K: a call (its second call not run), then a reply without one
        TASKS[3]: ("stopped", 2),  # hard: a plot, a KeyError
        TASKS[4]: ("out_of_turns", 4),  # easy: the prior turn and 3 calls (4 in all)
    }
    general = runs[TASKS[0]][1][0]
    assert "shop/orders.csv" in general.code and "shop/items.csv" in general.code  # names rewritten
    assert general.meta["protocol"] == "qwen-tools" and general.meta["tool"] == "code_interpreter"
    assert runs[TASKS[1]][1][0].code.endswith("\nsolution()")  # the interpreter's own addition
    assert runs[TASKS[1]][1][0].meta["observation"] == OUT.format("[2, 3]")

    # every request: the one tool, no stop words; each matched its messages (server.check)
    bodies = [r["body"] for r in played["server"].requests]
    assert len(bodies) == 9 and all(b["tools"] == TOOLS and "stop" not in b for b in bodies)
    hard_plot, hard_fail = runs[TASKS[3]][1]
    image = hard_plot.meta["observation"]
    assert image.startswith("![fig-001](/tmp/workspace/") and image.endswith(".png)")
    hard = [SYSTEM, user("[Upload file sales_2023.csv]Draw a bar chart of the sales of each region.")]
    asked = [b["messages"] for b in bodies if b["messages"][1] == hard[1]]
    assert asked == [hard, [*hard, HARD, answer("h0", image)]]  # the plot's tool answer: its image
    assert "KeyError" in hard_fail.meta["observation"]

    # the easy item's prior turn ran first, on the kernel: its result is the tool answer the model saw
    prior = runs[TASKS[4]][1][0]
    assert prior.meta["prior_turn"] and prior.meta["observation"] == OUT.format(HEAD.rstrip("\n"))
    assert prior.meta["qwen_text"] == ""

    # a turn's qwen_text is the ReAct text it stands for (what the scorer reads)
    gsm = [t.meta["qwen_text"] for t in runs[TASKS[2]][1]]
    assert gsm == [
        "Thought: I will compute it.\nAction: code_interpreter\nAction Input:\n```py\nprint(3 * 12 - 5)\n```"
        "\nObservation: " + OUT.format(31) + "\nThought:",
        " Tom has 31 apples left.",
    ]


def test_report_scores_a_tools_run_and_marks_it(played, capsys, monkeypatch):
    table = judged_report(played, "t", ["right", "right"], capsys, monkeypatch)
    full = "100.0 [100.0–100.0]"
    assert qwen_rows(table, "t (qwen-tools)") == [
        ["t (qwen-tools)", full, full, f"{full} (not comparable)", full, full, full],
        ["t (qwen-tools)", "1/1, 0 missing", "2/2, 0 missing", "1/1, 0 missing", "1/1", "1/1", "1/1"],
    ]
    assert "(qwen-tools): played with native tool calling, cibench-lab's mode, not the original's" in table
    # the run's closing summary: the same table (no judge in the run: Visualization not graded)
    assert qwen_rows(played["summary"], "t (qwen-tools)")[0][-2:] == ["not graded", "not graded"]
    assert "(qwen-tools): played with native tool calling" in played["summary"]

    args = ["--task-dir", str(played["tasks"]), "--db", played["db"], "report", "t", "--format", "json"]
    assert main(args) == 0
    (run,) = json.loads(capsys.readouterr().out)["qwen"]["runs"]
    assert (run["protocol"], run["original_protocol"]) == ("qwen-tools", False)
