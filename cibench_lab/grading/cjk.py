"""CJK-aware ROUGE-1 F for the `fair` profile.

rouge-score's default tokenizer keeps only ``[a-z0-9]`` runs, so Chinese text has
no tokens and scores 0 even against itself.  Here Han, kana and Hangul characters
are one token each (character-level, the usual choice for Chinese ROUGE) and every
other run of letters or digits, in any script, is one token, case-folded; rouge-score
computes F with that tokenizer.  Two empty texts score 1.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+")


def cjk_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


class _CJKTokenizer:  # rouge-score's tokenizer interface
    def tokenize(self, text: str) -> list[str]:
        return cjk_tokens(text)


@lru_cache(maxsize=1)
def _scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1"], tokenizer=_CJKTokenizer())


def rouge1_cjk(prediction: str, target: str) -> float:
    f = float(_scorer().score(target, prediction)["rouge1"].fmeasure)
    if f == 0.0 and not cjk_tokens(prediction) and not cjk_tokens(target):
        return 1.0  # nothing to say, and nothing said
    return f
