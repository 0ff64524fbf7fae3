"""Visualization accuracy: which items the original asks its judge about, the question, the verdict.

An item is easy when its query holds ``<|im_end|>`` (a prior turn; the judge's question is the
query up to it), hard otherwise.  The images are the ``![fig-…](PATH)`` links of the generation
whose file exists; the item is judged when, for at least one of them, the text from the last
observation marker before that link's first occurrence up to the link holds neither ``error:``
nor ``Traceback``.  The judge sees all the item's images and the question in the EN or ZH prompt
(by ``lang``).  ``qwen`` counts a reply containing "right" (so "not right" is right);
``fair`` counts it only when it says right and not wrong (:func:`fair_verdict`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .react import QWEN, Markers

PROMPT_ZH = """请判断图片是否与下面的[问题]一致，如果一致则回复“right”，不一致则回复“wrong”。
[问题]：{query}
"""

PROMPT_EN = """Please judge whether the image is consistent with the [Question] below, if it is consistent then reply "right", if not then reply "wrong".
[Question]: {query}
"""  # noqa: E501

PROMPTS = {"zh": PROMPT_ZH, "en": PROMPT_EN}
_IMAGE_LINK = re.compile(r"!\[fig-(.+)\]\((.+)\)")


def is_easy(query: str) -> bool:
    return "<|im_end|>" in query


def judge_prompt(query: str, lang: str) -> str:
    """The original's question for an item (the query before its prior turn, for easy items)."""
    if lang not in PROMPTS:
        raise ValueError(f"lang {lang!r} has no judge prompt (en or zh)")
    question = query.split("<|im_end|>")[0] if is_easy(query) else query
    return PROMPTS[lang].format(query=question)


def image_links(gen: str) -> list[str]:
    """The paths of the generation's image links, as written (greedy to a line's last ``)``)."""
    return [path for _, path in _IMAGE_LINK.findall(gen)]


def shown_cleanly(gen: str, links: list[str], markers: Markers = QWEN) -> bool:
    """Whether some link's observation (marker to link) holds no ``error:`` and no ``Traceback``."""
    flag = markers.observation
    for link in links:
        upto = gen[: gen.find(link) + len(link)]
        seen = upto[upto.rfind(flag) + len(flag) :]
        if "error:" not in seen and "Traceback" not in seen:
            return True
    return False


def judged_links(gen: str, exists: Callable[[str], bool], markers: Markers = QWEN) -> list[str]:
    """The links the judge sees (those whose file exists), or [] when the item is not judged."""
    links = [link for link in image_links(gen) if exists(link)]
    return links if links and shown_cleanly(gen, links, markers) else []


def qwen_verdict(reply: str) -> bool:
    """The original's parse: "right" anywhere in the reply, any case."""
    return "right" in reply.lower()


_WRONG = re.compile(r"\bwrong\b|\bnot\s+right\b|n't\s+right\b|\bincorrect\b|不一致|错误")
_RIGHT = re.compile(r"\bright\b|一致|正确")


def fair_verdict(reply: str) -> bool:
    """``fair``: right only when the reply says right (a word) and nothing that says wrong."""
    text = reply.lower()
    return bool(_RIGHT.search(text)) and not _WRONG.search(text)


VERDICTS: dict[str, Callable[[str], bool]] = {"qwen": qwen_verdict, "fair": fair_verdict}


@dataclass(frozen=True)
class VisItem:
    """A visualization item as the judge step sees it."""

    index: int
    easy: bool
    prompt: str
    images: tuple[str, ...]  # resolved files; empty: not judged (counts as not right)
