"""What a person sees of a Qwen benchmark item before and around play: its question shown
literally (markdown and MathJax leave ``x**2 - 5*x`` and ``$25`` alone) while the prompt stays the
original's, a title made of the question's start, the item in the task list (never a GSM8K gold),
and re-importing tasks an earlier version made updates them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cibench_lab.benchmarks.qwen.words import instruction_text
from cibench_lab.cli import main
from cibench_lab.models.qwen_react import item_prompt
from cibench_lab.tasks import literal
from cibench_lab.tasks.library import TaskLibrary
from cibench_lab.tasks.qwen import qwen_item, title_of

pytestmark = pytest.mark.fast

BENCH = Path(__file__).parent.parent / "fixtures" / "qwen" / "benchmark"
GOLD = BENCH.parent / "prompts"
MATH = "cibench_qwen/qwen-math/ci_0006"
QUESTION = "Solve x**2 - 5*x + 6 = 0 and print the roots."


@pytest.fixture
def into(tmp_path, capsys) -> Path:
    assert main(["tasks", "import", str(BENCH), "--into", str(tmp_path / "tasks")]) == 0
    capsys.readouterr()
    return tmp_path / "tasks"


def _rendered_text(markdown: str) -> str:
    """The text CommonMark renders ``markdown`` to, without the tags (markdown-it, stricter than
    JupyterLab's marked, which also reads ``x**2 - 5*x`` as emphasis: tests/ui/test_qwen_lab_ui.py
    reads the question off the lab's own rendering)."""
    import html as entities
    import re

    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown)
    assert "<em>" not in html and "<strong>" not in html and "<h1>" not in html and "<code>" not in html
    text = re.sub(r"<br />\n", "\n", html)
    text = re.sub(r"</p>\n<p>", "\n\n", text)
    text = re.sub(r"<[^>]+>", "", text).strip()
    return entities.unescape(text).replace("\xa0", " ")


@pytest.mark.parametrize(
    "text",
    [
        QUESTION,
        "A shirt costs $25 and a hat $30: what is \\(x\\)?",
        "# not a heading\n1. not a list\n    not code\n> not a quote",
        "- [x] <b>not bold</b> `not code` ~~no~~ [a](b) ![c](d)",
        "a_b_c | d | e\n--- | ---\nThought: still the question\n\nsecond paragraph \\\\ & &amp; @@1@@",
        "求 1 到 100 的整数之和。",
    ],
)
def test_literal_markdown_renders_as_the_text(text):
    assert _rendered_text(literal.block(text)) == text.strip()
    assert "$" not in literal.block(text).replace("\\$", "")  # JupyterLab's math split sees no delimiter
    assert "\\\\" not in literal.block(text)  # nor a \\( made of the text's backslashes


def test_the_question_shows_literally_and_the_prompt_stays_the_originals(into):
    task = TaskLibrary.load([into]).get(MATH)
    escaped = r"Solve x\*\*2 \- 5\*x \+ 6 \= 0 and print the roots\."
    assert task.steps[0].instruction == f'<div class="mathjax_ignore">\n\n{escaped}\n\n</div>'
    assert _rendered_text(task.steps[0].instruction) == QUESTION
    shown = instruction_text(qwen_item(task))
    assert literal.block(QUESTION) in shown and "*Files" not in shown
    assert item_prompt(qwen_item(task)) == (GOLD / "ci_0006.txt").read_bytes().decode("utf-8")


def test_titles_are_the_questions_start_on_one_line():
    assert title_of(QUESTION) == QUESTION
    long = "Draw a scatter plot of price against area for every district, coloured by year, with a legend."
    assert title_of(long) == "Draw a scatter plot of price against area for every…"
    assert title_of("Line one\n  line two") == "Line one line two"
    zh = "请" * 40
    assert title_of(zh) == "请" * 30 + "…"  # 60 columns: a CJK character takes two


def test_the_task_list_shows_each_item_and_never_a_gold(into):
    rows = {t.id: t.summary() for t in TaskLibrary.load([into]).tasks.values()}
    assert rows[MATH]["title"] == QUESTION
    assert rows[MATH]["benchmark_item"] == {
        "question": QUESTION,
        "family": "qwen-math",
        "difficulty": None,
        "files": [],
        "source": "eval_code_interpreter_v1.jsonl",
        "line": 6,
        "calls": 1,
        "runs": 1,
    }
    easy = rows["cibench_qwen/qwen-vis/ci_0002"]["benchmark_item"]
    assert easy["question"] == "Plot the temperature of each day as a line chart."  # no prior turn
    assert (easy["difficulty"], easy["calls"], easy["runs"], easy["files"]) == (
        "easy",
        4,
        3,
        ["weather/weather.csv"],
    )
    gsm = rows["cibench_qwen/qwen-math/gsm8k_0003"]
    gold = json.loads((BENCH / "gsm8k_test.jsonl").read_text().splitlines()[2])["answer"]
    assert gsm["benchmark_item"]["runs"] == 3
    assert gold not in json.dumps(rows) and "2,100" not in json.dumps(gsm)
    assert len({r["title"] for r in rows.values()}) == len(rows)


def test_import_updates_the_tasks_an_earlier_version_made(into, capsys):
    path = into / f"{MATH}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][0]["source"] = QUESTION  # as an earlier version wrote it: markdown
    nb["metadata"]["cibench_lab"]["title"] = "eval_code_interpreter_v1 line 6"
    path.write_text(json.dumps(nb), encoding="utf-8")
    assert main(["tasks", "import", str(BENCH), "--into", str(into)]) == 0
    out = capsys.readouterr().out
    assert f"updated    {MATH}" in out and "0 imported, 1 updated, 9 unchanged" in out
    task = TaskLibrary.load([into]).get(MATH)
    assert task.title == QUESTION and task.steps[0].instruction == literal.block(QUESTION)
