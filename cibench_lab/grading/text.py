"""`text` steps: ROUGE-1 F of the first fenced block (CIBench's text_step).

rouge-score's default tokenizer, no stemmer — as OpenCompass's Hugging Face
``rouge`` metric calls it.  That tokenizer keeps only ``[a-z0-9]`` runs, so
Chinese text scores 0 under this profile, even against itself (a known limit of the
official metric, kept on purpose; docs/grading.md).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .render import Rendered

_FIRST_BLOCK = re.compile("```\n(.*?)\n```", re.DOTALL)


@lru_cache(maxsize=1)
def _scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)


def rouge1(prediction: str, target: str) -> float:
    """ROUGE-1 F as OpenCompass reports it: x100 by RougeEvaluator, /100 by the evaluator."""
    return float(_scorer().score(target, prediction)["rouge1"].fmeasure) * 100 / 100


def first_block(rendered: list[Rendered]) -> str | None:
    for turn in reversed(rendered):
        if not turn.succeed:
            continue
        match = _FIRST_BLOCK.search(turn.text)
        if match:
            return match.group(1)
    return None
