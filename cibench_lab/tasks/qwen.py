"""Qwen's Code Interpreter Benchmark items as tasks (its 20231206 version).

One item (a row of ``eval_code_interpreter_v1.jsonl``: ``query``, ``tags``,
``input_file_path``, ``lang``; or a GSM8K-style ``{question, answer}`` row) becomes a
one-step task: a CIBench-format notebook with one instruction cell and an empty code cell
(there is no reference code), and the item under ``metadata.cibench_lab.qwen``:

* ``family``: ``qwen-vis`` (``visualization`` in the tags), else ``qwen-math`` (``math``
  in the tags, or a GSM8K row), else ``qwen-general`` — tags are matched by substring, as
  the original selects items;
* ``calls``: the original's interpreter call limit — 3 for a ``visualization`` item and 1
  for any other benchmark item (so a benchmark item tagged only ``math`` gets 1, as
  ``process_code_interpreter`` gives it), 3 for a GSM8K row; one more for an easy item,
  whose prior turn is a call;
* ``stop``: the play ends at the first observation holding one of these strings;
* ``difficulty`` (visualization): ``easy`` when the query carries the first assistant
  turn, else ``hard``; ``judge_prompt``: the question the original asks its VLM judge;
* ``answer`` (GSM8K): the row's answer text, ``#### N`` included.

The kernel of such a task runs in ``upload_file/`` (``workdir``), where the original's
kernel runs; the files are the task's ``data_files`` under ``upload_file/``.  The task's title is
the start of the question (:func:`title_of`); its instruction cell shows the question literally
(:func:`.literal.block`: markdown and MathJax leave ``x**2 - 5*x`` and ``$25`` as they are), while
the prompt a model gets is built from ``query`` (``models/qwen_react.py``), byte for byte.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from . import literal
from .kinds import register_kind
from .meta import KEY
from .model import Step, StepItem, Task

VERSION = "20231206"
TITLE_WIDTH = 60  # a title's most columns (a CJK character takes two)
FAMILIES = ("qwen-math", "qwen-vis", "qwen-general")
STOP = ("error:", "Traceback")
WORKDIR = "upload_file"
IM_START, IM_END = "<|im_start|>", "<|im_end|>"

#: The original's judge questions (metrics/visualization.py), by ``lang``.
JUDGE_PROMPTS = {
    "zh": "请判断图片是否与下面的[问题]一致，如果一致则回复“right”，不一致则回复“wrong”。\n[问题]：{query}\n",
    "en": (
        "Please judge whether the image is consistent with the [Question] below, if it is consistent "
        'then reply "right", if not then reply "wrong".\n[Question]: {query}\n'
    ),
}


def family_of(tags: str) -> str:
    """The family of a benchmark item by its tags (substring match, visualization first)."""
    if "visualization" in tags:
        return "qwen-vis"
    if "math" in tags:
        return "qwen-math"
    return "qwen-general"


def question_of(query: str) -> str:
    """The query without an easy item's prior turn (what the judge and a person are shown)."""
    return query.split(IM_END)[0]


def title_of(question: str) -> str:
    """A task's title: the question's start on one line, cut at a word (or, in Chinese, a
    character) within :data:`TITLE_WIDTH` columns and ended with an ellipsis when cut."""
    text = " ".join(question.split())
    width = 0
    for i, char in enumerate(text):
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if width > TITLE_WIDTH:
            cut = text[:i]
            space = cut.rfind(" ")
            cut = cut[:space] if space > len(cut) // 2 else cut
            return cut.rstrip(" ,.;:，。；：、") + "…"
    return text


def person_runs(item: dict[str, Any]) -> int:
    """The runs a person gets on the item: its calls, less an easy item's prior turn (a call
    the setup makes); at least one."""
    prior = 1 if IM_START in str(item["query"]) else 0
    return max(int(item["calls"]) - prior, 1)


def public_item(metadata: dict[str, Any]) -> dict[str, Any] | None:
    """What the task list shows of a task's item before play (never a GSM8K gold): the question
    without a prior turn, its family, difficulty, files, where it came from, its call limit and
    the runs a person gets.  None: not a Qwen task."""
    extra = metadata.get(KEY)
    item = extra.get("qwen") if isinstance(extra, dict) else None
    if not isinstance(item, dict):
        return None
    return {
        "question": question_of(str(item["query"])).strip(),
        "family": item["family"],
        "difficulty": item.get("difficulty"),
        "files": list(item.get("input_file_path", [])),
        "source": item["source"],
        "line": item["line"],
        "calls": int(item["calls"]),
        "runs": person_runs(item),
    }


def benchmark_meta(item: dict[str, Any], source: str, line: int) -> dict[str, Any]:
    """``metadata.cibench_lab.qwen`` of a benchmark item (validated beforehand)."""
    query, tags = item["query"], item["tags"]
    family = family_of(tags)
    easy = IM_END in query
    lang = item.get("lang", "en")
    meta: dict[str, Any] = {
        "family": family,
        "version": VERSION,
        "source": source,
        "line": line,
        "query": query,
        "tags": tags,
        "lang": lang,
        "input_file_path": list(item.get("input_file_path", [])),
        "calls": (3 if "visualization" in tags else 1) + (1 if easy else 0),
        "stop": list(STOP),
        "workdir": WORKDIR,
    }
    if family == "qwen-vis":
        meta["difficulty"] = "easy" if easy else "hard"
        meta["judge_prompt"] = JUDGE_PROMPTS[lang].format(query=question_of(query))
    return meta


def gsm8k_meta(row: dict[str, Any], source: str, line: int) -> dict[str, Any]:
    """``metadata.cibench_lab.qwen`` of a GSM8K row."""
    return {
        "family": "qwen-math",
        "version": VERSION,
        "source": source,
        "line": line,
        "query": row["question"],
        "lang": "en",
        "input_file_path": [],
        "answer": row["answer"],
        "calls": 3,
        "stop": list(STOP),
        "workdir": WORKDIR,
    }


def notebook(qwen: dict[str, Any], data_files: list[str]) -> dict[str, Any]:
    """The task notebook: one instruction cell (the question, shown literally), one empty code
    cell, the item in the metadata; titled by the question's start."""
    question = question_of(qwen["query"]).strip()
    extra = {
        "schema_version": 1,
        "title": title_of(question),
        "language": qwen["lang"],
        "libraries": [qwen["family"]],
        "data_files": data_files,
        "data_source": f"Qwen-Agent benchmark ({VERSION}): {qwen['source']} line {qwen['line']}",
        "qwen": qwen,
    }
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": literal.block(question)},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ""},
    ]
    return {"cells": cells, "metadata": {KEY: extra}, "nbformat": 4, "nbformat_minor": 5}


def qwen_item(task: Task) -> dict[str, Any] | None:
    """The task's Qwen benchmark item (``metadata.cibench_lab.qwen``), None for other tasks."""
    extra = task.metadata.get(KEY)
    item = extra.get("qwen") if isinstance(extra, dict) else None
    return item if isinstance(item, dict) else None


def is_qwen(task: Task) -> bool:
    """Is this a Qwen benchmark task (no reference code: never replayed or self-graded)?"""
    return qwen_item(task) is not None


def call_limit(task: Task) -> int | None:
    """The interpreter calls the task allows (None: not a Qwen task)."""
    item = qwen_item(task)
    return None if item is None else int(item["calls"])


def stops(task: Task, observation: str) -> bool:
    """Does this observation end the play (the original's stop rule)?"""
    item = qwen_item(task)
    return item is not None and any(s in observation for s in item["stop"])


#: Seconds one interpreter call may take (the original's ``code_interpreter(timeout=30)``).
CALL_TIMEOUT = 30.0


@dataclass(frozen=True)
class QwenStep(StepItem):
    """What grading needs of a Qwen benchmark task's one step (``metadata.cibench_lab.qwen``): its
    family, a visualization item's judge question, a GSM8K row's gold text (``Step.benchmark_item``)."""

    family: str  # qwen-math | qwen-vis | qwen-general
    lang: str = "en"
    judge_prompt: str | None = None
    answer: str | None = None  # never shown before the step settles (grading/qwen/lab.py)


def qwen_step(step: Step) -> QwenStep | None:
    """What grading reads of a Qwen benchmark task's step (None: a step of another benchmark)."""
    item = step.benchmark_item
    return item if isinstance(item, QwenStep) else None


class QwenKind:
    """Qwen's benchmark tasks to the generic task code (:mod:`.kinds`): no reference code."""

    name = "qwen"
    reference_code = False

    def listing(self, metadata: dict[str, Any]) -> dict[str, Any] | None:
        return public_item(metadata)


register_kind(QwenKind())
