"""The qwen-react prompt against goldens made by running the original benchmark's prompt code
(tests/fixtures/qwen/prompts/make_goldens.py)."""

import json
from pathlib import Path

import pytest

from cibench_lab.models import qwen_react

pytestmark = pytest.mark.fast

FIX = Path(__file__).parent.parent / "fixtures" / "qwen"
GOLD = FIX / "prompts"


def _rows(name):
    lines = (FIX / "benchmark" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _gold(name):
    return (GOLD / name).read_bytes().decode("utf-8")


ITEMS = list(enumerate(_rows("eval_code_interpreter_v1.jsonl"), start=1))


@pytest.mark.parametrize(("n", "item"), ITEMS, ids=[f"ci_{n:04d}" for n, _ in ITEMS])
def test_planning_prompt_is_the_originals(n, item):
    got = qwen_react.planning_prompt(item["query"], item["lang"], item["input_file_path"])
    assert got == _gold(f"ci_{n:04d}.txt")


@pytest.mark.parametrize("n", [1, 2, 3])
def test_gsm8k_prompt_is_the_originals(n):
    doc = _rows("gsm8k_test.jsonl")[n - 1]
    assert qwen_react.planning_prompt(doc["question"]) == _gold(f"gsm8k_{n:04d}.txt")


def test_easy_items_prior_turn_code_is_what_the_original_runs_first():
    easy = [(n, it) for n, it in ITEMS if qwen_react.has_prior_turn(it["query"])]
    assert [n for n, _ in easy] == [2]
    for n, item in easy:
        code = qwen_react.prior_turn_code(item["query"], item["input_file_path"])
        assert code == _gold(f"ci_{n:04d}.prepend.txt")
        assert "weather/weather.csv" in code
    assert qwen_react.prior_turn_code("no prior turn", ["a.csv"]) is None


def test_basenames_only_and_no_separator_before_the_question():
    prompt = qwen_react.planning_prompt("Q?", "zh", ["x/a.csv", "y/b.csv"])
    assert prompt.endswith("Question: [上传文件a.csv, b.csv]Q?<|im_end|>\n<|im_start|>assistant\n")
    assert "x/a.csv" not in prompt


def test_upload_names_rewritten_as_the_original_rewrites_them():
    files = ["sales/sales_2023.csv", "shop/orders.csv", "shop/items.csv"]
    for code, want in json.loads(_gold("rewrite.json")):
        assert qwen_react.rewrite_upload_names(code, files) == want


def test_observation_and_stop_words():
    assert qwen_react.observation_text("stdout:\n```\n42\n```") == _gold("observation.txt")
    assert qwen_react.STOP_WORDS == ("Observation:", "Observation:\n")


def test_latest_call_parsed_when_the_stop_word_was_cut():
    reply = "Thought: go\nAction: code_interpreter\nAction Input:\n```py\nprint(1)\n```\n"
    tool, code, text = qwen_react.parse_latest_call(reply)
    assert (tool, code) == ("code_interpreter", "```py\nprint(1)\n```")
    assert text == reply.rstrip()
    assert qwen_react.parse_latest_call("Final Answer: 3") == ("", "", "Final Answer: 3")
