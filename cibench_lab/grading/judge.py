"""Optional VLM judge for `vis` steps (fair profile), on any OpenAI-compatible vision model.

CIBench's judge: the step's question in its judge prompt plus the image; the
model answers 1-10; the last number of the reply, as an int in 1..10, ÷ 10 is the
score (OpenCompass ``vl_model_score`` with ``gsm8k_postprocess``).  The prompts
below are CIBench's own text (OpenCompass, Apache-2.0), reproduced so scores are
comparable; the code is ours.

Grading defines what a judge is (:class:`Judge`: images + prompt -> verdict and
raw reply) and never builds one: the server and the CLI construct the model
client (``cibench_lab.models.judge``) and hand it to the :class:`~.pool.Grader`,
whose :class:`Verdicts` asks it and caches verdicts by (prompt, image hash).  A
failure is recorded as ``{"score": None, "error": ...}`` — never as 0 — and not
cached.  Without a judge (``tasks verify``, ``tasks build``, plain
:func:`~.profile.grade_all`) no verdict is asked for.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..tasks.model import Step
from .fair import judged_image
from .images import digest
from .own import rules_of
from .turn import TurnOutput

JUDGE_PROMPT = """You are an assistant skilled in assessing visualization capabilities.
In the capacity of a fair judge, you will evaluate the quality of images drawn by an AI model generating code for visualization-related problems. We will provide you with a code visualization problem and an image drawn by the code created by the AI model you need to assess. When you start your assessment, you must adhere to the following process:
1. Rate the visualization capability with a score between 1 and 10 for the image, returning only the number without any additional descriptions.
2. Your scoring needs to be as rigorous as possible, and it should follow the scoring rules below: Overall, the higher the quality of the model's response, the higher the score.

A score of 1 to 2 is given when the image cannot reflect the given instruction content at all.
A score of 3 to 4 is given when the image can partly reflect the given instruction content, but there is a significant lack of specific detail expression.
If the image basically meets the given instructions, but the aesthetic quality of the image is average without any outstanding features, this kind of rating can get a score of 5 to 6.
When the image matches the given instructions well, and shows some aesthetic appeal, such as some originality in color matching and shape design, this kind of rating can get a score of 7 to 8.
Only when the image completely matches the given instructions, covers all the details in the instructions, and performs excellently in terms of aesthetics, can this kind of rating get a score of 9 to 10.

[Visualization Problem]:{question}
"""  # noqa: E501

JUDGE_PROMPT_CN = """你是一个擅长评价可视化能力的助手。
请你以公正的评判者的身份，评估一个AI模型对可视化相关问题生成的代码所绘制图像的质量。
我们会给您提供一个代码可视化问题，和需要你评估的AI模型生成的代码所绘制的图像。当你开始你的评估时，你需要遵守以下的流程：
1. 针对图像，给可视化能力一个1～10的分数，仅需返回数字，无需任何其他描述。
2. 你的打分需要尽可能严格，并且要遵守下面的评分规则：总的来说，模型回答的质量越高，则分数越高。

当图像完全无法反映出所给定的指令内容时，此类评分得到1到2分。
当图像能够部分体现出所给定的指令内容，但在具体的细节表达上有很大的缺失时，此类评分为3到4分。
当图像基本能够符合所给定的指令，但是在图像的美观性上呈现一般，没有特别出彩的地方时，此类评分可以得到5到6分。
当图像能够较好地匹配上所给的指令，并且在图像的美观性上有所表现，如在颜色搭配、形状设计等方面有一些新意时，此类评分可以得到7到8分。
当图像完全匹配上所给的指令，涵盖了指令中的所有细节，并且在图像的美观性上表现出色，此类评分才能得到9到10分。

[可视化问题]：{question}
"""  # noqa: E501

_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMBER = re.compile(r"\-?\d+\.\d+|\-?\d+")
CACHE_SIZE = 4096


@dataclass(frozen=True)
class Verdict:
    """What a judge said: its score (``parse_score``), its raw reply, or why it failed."""

    score: float | None
    reply: str | None = None
    error: str | None = None


class Judge(Protocol):
    """A vision model that rates base64 PNGs against a prompt."""

    model: str  # recorded with each verdict

    async def judge(self, images: Sequence[str], prompt: str) -> Verdict: ...


def judge_prompt(question: str) -> str:
    template = JUDGE_PROMPT_CN if _CJK.search(question) else JUDGE_PROMPT
    return template.format(question=question)


def parse_score(reply: str) -> float:
    """CIBench's parse: the last number before any 'Question:', as an int in 1..10, ÷ 10."""
    found = _NUMBER.findall((reply or "").split("Question:")[0])
    if not found:
        raise ValueError("the judge's reply has no number")
    value = int(float(found[-1]))
    if not 1 <= value <= 10:
        raise ValueError(f"the judge's score {value} is outside 1..10")
    return value / 10


def failure(err: BaseException) -> str:
    """How a failed verdict names its cause."""
    return f"{err.__class__.__name__}: {str(err)[:200]}"


class Verdicts:
    """One judge's verdicts on steps' figures, cached by (prompt, image)."""

    def __init__(self, judge: Judge | None, size: int = CACHE_SIZE):
        self.judge = judge
        self.size = size
        self._cache: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def for_step(self, step: Step, turns: list[TurnOutput]) -> dict[str, Any] | None:
        """The verdict ``grade_all`` records for the step's turns; None without a judge or figure."""
        judge = self.judge
        image = judged_image(step, turns) if judge is not None else None
        if judge is None or image is None:
            return None
        rules = rules_of(step)
        own = rules.judge_prompt(step) if rules is not None else None  # its benchmark's own question
        prompt = own or judge_prompt(step.prompt or step.instruction)
        key = hashlib.sha256(f"{prompt}\0{digest(image)}".encode()).hexdigest()
        if key in self._cache:
            self._cache.move_to_end(key)
            return {**self._cache[key], "cached": True}
        verdict = await (self._ask_words(judge, prompt, image) if own else self._ask(judge, prompt, image))
        if verdict["error"] is None:
            self._cache[key] = verdict
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return {**verdict, "cached": False}

    @staticmethod
    async def _ask_words(judge: Judge, prompt: str, image: str) -> dict[str, Any]:
        """A verdict on a benchmark's own question: the reply's words, no 1..10 score (each profile of
        the benchmark's own rules reads it, :mod:`.own`)."""
        ask = getattr(judge, "reply", None)
        if ask is None:  # a judge with no raw reply: its verdict's reply, its score's parse ignored
            said = await Verdicts._ask(judge, prompt, image)
            return {**said, "score": None, "error": None} if said["reply"] else said
        try:
            reply, error = str(await ask([image], prompt))[:200], None
        except Exception as err:  # fails this verdict, never the turn (named only: a key may be in it)
            reply, error = None, f"{err.__class__.__name__}: the judge failed"
        return {"model": judge.model, "score": None, "reply": reply, "error": error}

    @staticmethod
    async def _ask(judge: Judge, prompt: str, image: str) -> dict[str, Any]:
        try:
            said = await judge.judge([image], prompt)
        except Exception as err:  # a judge that raises fails this verdict, never the turn
            said = Verdict(None, None, failure(err))
        return {"model": judge.model, "score": said.score, "reply": said.reply, "error": said.error}
