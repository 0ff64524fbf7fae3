"""How Qwen's Code Interpreter Benchmark words its tasks: the attempt notebook's title and
instruction, ``tasks show``'s line, the reference player's refusal.

A person's notebook names the benchmark, the item's family and difficulty; the instruction shows
the question literally (:mod:`cibench_lab.tasks.literal`) and lists the files with their paths
inside ``upload_file/``, since a person's code is run as typed (a model's has each basename
rewritten to its path, as the original does).
"""

from __future__ import annotations

from ...models.qwen_react import prior_turn_code
from ...tasks import literal
from ...tasks.model import Task
from ...tasks.qwen import VERSION, WORKDIR, question_of, qwen_item

FAMILY_WORDS = {"qwen-vis": "visualization", "qwen-math": "math", "qwen-general": "general"}
NO_REFERENCE = "\nreference: none (a Qwen benchmark item has no reference code)\n"


def notebook_words(task: Task) -> tuple[str, str] | None:
    """The notebook's subtitle (the mode follows it) and its instruction cell."""
    item = qwen_item(task)
    if item is None:
        return None
    family = FAMILY_WORDS.get(item.get("family", ""), "")
    return f"*Qwen Code Interpreter Benchmark ({VERSION}) · {family}", instruction_text(item)


def instruction_text(item: dict) -> str:
    """The item's family and difficulty, its question (shown literally: :mod:`...tasks.literal`), and
    its files inside ``upload_file/``."""
    family = FAMILY_WORDS.get(item.get("family", ""), "")
    level = f" ({item['difficulty']})" if item.get("difficulty") else ""
    text = f"**{family}{level}**\n\n{literal.block(question_of(item['query']).strip())}"
    files = list(item.get("input_file_path", []))
    if files:
        names = ", ".join(f"`{f}`" for f in files)
        text += f"\n\n*Files: {names} (the kernel runs in `{WORKDIR}/`)*"
    if prior_turn_code(item["query"], files) is not None:
        text += "\n\n*The first turn already ran: its cell below is read-only.*"
    return text


def qwen_line(item: dict) -> str:
    """A Qwen benchmark task's family and limits, for ``tasks show``."""
    stop = " or ".join(repr(s) for s in item["stop"])
    calls = f"at most {item['calls']} interpreter calls"
    return f"qwen: {item['family']}, {calls}, stops at an observation holding {stop}\n"


def refusal(task: Task) -> str:
    return (
        f"{task.id}: a task of Qwen's Code Interpreter Benchmark has no reference code "
        "(the reference player plays CIBench tasks only)"
    )
