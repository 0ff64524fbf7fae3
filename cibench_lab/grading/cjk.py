"""CJK-aware ROUGE-1 F for the `fair` profile.

rouge-score's default tokenizer keeps only ``[a-z0-9]`` runs, so Chinese text has
no tokens and scores 0 even against itself.  Here Han, kana and Hangul characters
are one token each (character-level, the usual choice for Chinese ROUGE) and every
other run of letters or digits, in any script, is one token, case-folded.  F is
computed on token multisets as ROUGE-1 is; two empty texts score 1.
"""

from __future__ import annotations

import re
from collections import Counter

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+")


def cjk_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.casefold())


def rouge1_cjk(prediction: str, target: str) -> float:
    pred, ref = Counter(cjk_tokens(prediction)), Counter(cjk_tokens(target))
    if not pred and not ref:
        return 1.0
    overlap = sum((pred & ref).values())
    if not overlap:
        return 0.0
    precision = overlap / sum(pred.values())
    recall = overlap / sum(ref.values())
    return 2 * precision * recall / (precision + recall)
