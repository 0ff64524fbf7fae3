"""Optional VLM judge for `vis` steps (fair profile), on any OpenAI-compatible vision model.

CIBench's judge: the step's question in its judge prompt plus the image; the
model answers 1-10; the last number of the reply, as an int in 1..10, ÷ 10 is the
score (OpenCompass ``vl_model_score`` with ``gsm8k_postprocess``).  The prompts
below are CIBench's own text (OpenCompass, Apache-2.0), reproduced so scores are
comparable; the code is ours.

Configured server-side only: ``configure(JudgeConfig(...))`` (the server's
``CIBenchLabApp.judge_*`` traits) or, for the CLI, the environment variables
``CIBENCH_LAB_JUDGE_MODEL``, ``CIBENCH_LAB_JUDGE_BASE_URL`` and
``CIBENCH_LAB_JUDGE_API_KEY_ENV`` (the *name* of the variable holding the key).
Verdicts are cached by (model, prompt, image hash); a failure is recorded as
``{"score": None, "error": ...}`` — never as 0 — and not cached.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .images import digest

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
class JudgeConfig:
    model: str
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0


_config: JudgeConfig | None = None
_from_env = True
_cache: OrderedDict[str, dict[str, Any]] = OrderedDict()
_lock = threading.Lock()


def configure(config: JudgeConfig | None) -> None:
    """Set (or, with None, turn off) the judge for this process; overrides the environment."""
    global _config, _from_env
    with _lock:
        _config, _from_env = config, False
        _cache.clear()


def configure_from_traits(model: str, base_url: str, api_key_env: str) -> None:
    """The server's hook: its ``judge_*`` traits; an empty model leaves the environment's choice."""
    if model:
        configure(JudgeConfig(model=model, base_url=base_url, api_key_env=api_key_env or "OPENAI_API_KEY"))


def active() -> JudgeConfig | None:
    if _from_env:
        model = os.environ.get("CIBENCH_LAB_JUDGE_MODEL", "")
        if not model:
            return None
        return JudgeConfig(
            model=model,
            base_url=os.environ.get("CIBENCH_LAB_JUDGE_BASE_URL", ""),
            api_key_env=os.environ.get("CIBENCH_LAB_JUDGE_API_KEY_ENV", "OPENAI_API_KEY"),
        )
    return _config


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


def judge_step(step, image_b64: str) -> dict[str, Any] | None:
    """The judge's verdict on a step's image, or None when no judge is configured."""
    config = active()
    if config is None:
        return None
    prompt = judge_prompt(step.prompt or step.instruction)
    key = hashlib.sha256(
        f"{config.model}\0{config.base_url}\0{prompt}\0{digest(image_b64)}".encode()
    ).hexdigest()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return {**_cache[key], "cached": True}
    verdict = _ask(config, prompt, image_b64)
    if verdict["error"] is None:
        with _lock:
            _cache[key] = verdict
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return {**verdict, "cached": False}


def _ask(config: JudgeConfig, prompt: str, image_b64: str) -> dict[str, Any]:
    verdict: dict[str, Any] = {"model": config.model, "score": None, "reply": None, "error": None}
    try:
        from openai import OpenAI

        client = OpenAI(
            base_url=config.base_url or None,
            api_key=os.environ.get(config.api_key_env) or "none",
            timeout=config.timeout,
            max_retries=0,  # a failure is recorded; the next grading of the step asks again
        )
        content = [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image_b64}"}},
        ]
        reply = client.chat.completions.create(
            model=config.model, messages=[{"role": "user", "content": content}], max_tokens=32, temperature=0
        )
        verdict["reply"] = (reply.choices[0].message.content or "")[:200]
        verdict["score"] = parse_score(verdict["reply"])
    except Exception as err:  # any failure is recorded as such, never as a 0
        verdict["error"] = f"{err.__class__.__name__}: {str(err)[:200]}"
    return verdict
