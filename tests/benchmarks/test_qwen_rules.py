"""The Qwen benchmark's scoring rules, one quirk at a time (cibench_lab.grading.qwen), and the
GSM8K answers of the golden run: what the original's own extract_answer/is_correct said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cibench_lab.grading.qwen import answer, execrate, judge, outputs, react
from cibench_lab.grading.qwen.score import ExecResult, score_folder

pytestmark = pytest.mark.fast
FIX = Path(__file__).parent.parent / "fixtures" / "qwen"
GOLDEN = json.loads((FIX / "golden.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", GOLDEN["gsm8k_extract_answer"], ids=lambda r: r["completion"][-24:])
def test_answers_are_the_originals(row):
    gsm = {
        r["completion"]: r for r in outputs.load_rows(FIX / "outputs" / "gsm8k_qwen-14b-chat_res.jsonl")[0]
    }
    assert answer.extract_answer(row["completion"]) == row["answer"]
    assert answer.math_correct(row["completion"], gsm[row["completion"]]["answer"]) is row["is_correct"]


@pytest.mark.parametrize(
    "text, qwen, fair",
    [
        ("The total is $255.", 255, 255),  # $ may precede a number
        ("She pays 1,050 dollars", 1, 1050),  # the first alternative wins
        ("It is 290.0 apples", 290, 290.0),  # a fraction must end in 1-9
        ("```\n42\n```", answer.INVALID, 42),  # alone on a line: invisible
        ("the result is 18\nsee above", answer.INVALID, 18),  # at a line's end: invisible
        ("it is 7 , then", answer.INVALID, 7),  # an empty match is the last one
        ("\\boxed{42}", 42, 42),
        ("change of -3 degrees.", -3, -3),
    ],
)
def test_math_quirks_and_fair_reading(text, qwen, fair):
    assert answer.extract_answer(text) == qwen
    assert answer.fair_answer(text) == fair


def test_gold_is_read_from_the_gsm8k_answer():
    assert answer.gold_answer("Working 5 + 7 = 12.\n#### 72") == 72
    assert answer.math_correct("Final Answer: 290.0 apples", "x\n#### 290")
    with pytest.raises(ValueError, match="no gold answer"):
        answer.gold_answer("no number here")


GEN = (
    "Thought: a\nAction: code_interpreter\nAction Input:\n```py\nx = 1\n```\nObservation: ok\nThought: b\n"
    "Action: code_interpreter\nAction Input:\n```py\nprint(x)\n```\nObservation: 1\nThought: done"
)


def test_first_action_for_visualization_all_for_math():
    vis = execrate.exec_item(0, {"tags": "visualization", "gen": GEN, "query": "q"})
    math = execrate.exec_item(0, {"tags": "general,math", "gen": GEN, "query": "q"})
    assert vis.code.endswith("# concat\nx = 1\n\n") and "print(x)" not in vis.code
    assert math.code.endswith("# concat\nx = 1\n\n# concat\nprint(x)\n\n")
    assert vis.code.startswith(execrate.PRE_LOAD) and (vis.limit, math.limit) == (10.0, 10.0)
    assert execrate.exec_item(0, {"tags": "general", "gen": GEN, "query": "q"}).limit is None


def test_a_repeated_action_input_ends_the_walk():
    twice = (
        GEN.replace("print(x)", "x = 1") + "\nAction: code_interpreter\nAction Input: `boom()`\nObservation:"
    )
    assert react.action_inputs(twice) == ["```py\nx = 1\n```"]


def test_code_from_fences_backticks_or_json5():
    assert react.extract_code("```python\na = 1\n```") == "a = 1\n"
    assert react.extract_code("`b = 2`") == "b = 2"
    assert react.extract_code("{code: 'c = 3'}") == "c = 3"
    assert react.extract_code("d = 4") == "d = 4"


def test_easy_items_prepend_the_querys_actions_and_paths_are_rewritten():
    query = "Plot it.<|im_end|>\n<|im_start|>assistant\n" + GEN.replace("x = 1", 'df = read("s.csv")')
    code = execrate.prepare("# concat\nplot(df)\nplt.show()\n", query, ["dir/s.csv"])
    body = code[len(execrate.PRE_LOAD) :]
    assert body.startswith('# concat\ndf = read("dir/s.csv")\n') and "plot(df)" in body
    assert body.endswith("\nplt.pause(1)\nplt.close('all')\n")
    assert execrate.prepare("def solution():\n    pass\n", "q", []).endswith("\nsolution()\n")
    assert execrate.prepare('sns.lineplot(x="a")', "q", []).endswith("\nplt.close('all')\n")


def test_missing_code_counts_in_the_denominator():
    item = execrate.exec_item(0, {"tags": "general", "gen": "Thought: no.\nFinal Answer: 1"})
    assert item.missing
    rate = execrate.rates(["general", "general,math"], [True, False], [False, True])
    assert (rate["general"].percent, rate["math"].percent, rate["math"].missing) == (50.0, 0.0, 1)
    with pytest.raises(ValueError, match="unknown tag"):
        execrate.family_rule("plotting")


def test_judged_only_when_an_image_follows_a_clean_observation():
    clean = "Action Input: x\nObservation: stdout: fine\n\n![fig-001](/w/a.png)"
    failed = "Action Input: x\nObservation: error:\n\n```\nTraceback\n```\n\n![fig-001](/w/a.png)"
    assert judge.judged_links(clean, lambda p: True) == ["/w/a.png"]
    assert judge.judged_links(failed, lambda p: True) == []
    assert judge.judged_links(clean, lambda p: False) == []  # an image that is not there


def test_judge_prompts_and_verdicts():
    easy = judge.judge_prompt("Draw it.<|im_end|>\n<|im_start|>assistant\nThought:", "en")
    assert easy.endswith("[Question]: Draw it.\n") and 'reply "right"' in easy
    assert judge.judge_prompt("画图", "zh").endswith("[问题]：画图\n")
    for reply, qwen, fair in [("Right.", True, True), ("not right", True, False), ("wrong", False, False)]:
        assert (judge.qwen_verdict(reply), judge.fair_verdict(reply)) == (qwen, fair)


def test_image_paths_are_rebased_inside_the_folder(tmp_path):
    (tmp_path / "a.png").write_bytes(b"png")
    assert outputs.rebase("/tmp/workspace/a.png", tmp_path) == (tmp_path / "a.png").resolve()
    assert outputs.rebase("/tmp/workspace/gone.png", tmp_path) is None
    outside = tmp_path / "out"
    outside.mkdir()
    assert outputs.rebase("../a.png", outside) is None  # not by a relative path out of it


def test_without_a_judge_visualization_accuracy_is_not_graded():
    ran = []
    scores = score_folder(
        FIX / "outputs", "qwen", lambda item: ran.append(item) or ExecResult(True), lambda o, i: None
    )
    vis = scores[0].vis
    assert not vis["hard"].graded and vis["hard"].percent is None and vis["hard"].unanswered == 5
    assert scores[0].math is not None and scores[0].math.percent == 60.0  # the recorded acc
    assert len(ran) == 15  # every item with code, and only those


def test_bad_files_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no .*_MODEL_res.jsonl"):
        outputs.output_files(tmp_path)
    (tmp_path / "general_m_res.jsonl").write_text('{"tags": "visualization", "gen": ""}\nnot json\n')
    files = outputs.output_files(tmp_path)
    assert files[0].skipped == 1
    with pytest.raises(ValueError, match="general_m_res.jsonl: line 1 has tags 'visualization'"):
        score_folder(tmp_path, "qwen", lambda item: ExecResult(True), lambda o, i: None)


def test_a_live_judge_is_asked_the_originals_question(monkeypatch, tmp_path):
    """The vision judge on the scripted OpenAI-compatible server: the prompt, the PNG, 300 tokens."""
    import base64

    from openai_server import ScriptedServer

    from cibench_lab.cli.qwen import QWEN_JUDGE_TOKENS, AskedReplies
    from cibench_lab.models.judge import VisionJudge

    png = FIX / "outputs" / "qwenfix-a.png"
    prompt = judge.judge_prompt("Plot it.", "en")
    content = [
        {"type": "text", "text": prompt},
        {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode()},
        },
    ]
    exchange = {"messages": [{"role": "user", "content": content}], "reply": "Not right.", "faults": []}
    monkeypatch.setenv("QWEN_JUDGE_KEY", "sk-qwen-judge")
    with ScriptedServer(
        [exchange], model="vl", key="sk-qwen-judge", max_tokens=QWEN_JUDGE_TOKENS, temperature=0.0
    ) as srv:
        vlm = VisionJudge(model="vl", base_url=srv.base_url, api_key_env="QWEN_JUDGE_KEY")
        vlm.max_tokens = QWEN_JUDGE_TOKENS
        asked = AskedReplies(vlm)
        out = outputs.OutputFile(tmp_path / "visualization_m_res.jsonl", "visualization", "m")
        reply = asked(out, judge.VisItem(4, False, prompt, (str(png),)))
    assert reply == "Not right." and judge.qwen_verdict(reply) and not judge.fair_verdict(reply)
    asked.save(tmp_path / "replies.jsonl")
    assert json.loads((tmp_path / "replies.jsonl").read_text()) == {
        "file": out.path.name,
        "line": 4,
        "reply": reply,
    }


def test_internlm_outputs_are_read_with_its_markers():
    gen = (
        "Thought: go\nAction: code_interpreter\nActionInput:```py\nz = 3\n```<eoa>\n<|System|>:Response: done"
    )
    assert react.markers_for("internlm-20b-chat") is react.INTERNLM
    assert react.action_code(gen, react.markers_for("internlm-20b-chat")) == "# concat\nz = 3\n\n"
    assert react.action_code(gen, react.markers_for("qwen-14b-chat")) == ""
