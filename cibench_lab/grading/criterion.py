"""How a profile decides that a step passes, in words for the person playing it.

One sentence per (profile, step kind), built from the graders' own thresholds so it stays
true when they change; it never holds a reference value.  A Chinese task's ``cibench`` text
step says that CIBench's rule reads only Latin letters and digits (docs/grading.md).

:func:`passes` is the short form a text step's badge shows beside its ROUGE-1 score: what to
print, as the profile reads it (``fair``: the last line, the answer alone or named in a sentence
— grading/sentence.py; ``cibench``: the first printed block, the answer's words only).
"""

from __future__ import annotations

from .cibench import PASS_SCORE
from .plot import TOL

LATIN_ONLY = "CIBench's rule reads only Latin letters and digits"

_RUNS = "passes when it runs without error"
_FIRST = "CIBench's rule: your first printed result contains the reference's text"
_SSIM = f"SSIM >= {PASS_SCORE['vis']:g}"
_END = "read from the end of your output: print the answer last, alone or in a short sentence"

_CRITERIA = {
    "cibench": {
        "exec": _RUNS,
        "num": f"passes when the printed number matches ({_FIRST})",
        "general": f"passes when the printed output matches ({_FIRST})",
        "text": f"passes at ROUGE-1 >= {PASS_SCORE['text']:g} (the first printed block)",
        "vis": f"passes at {_SSIM} (the first image)",
    },
    "fair": {
        "exec": _RUNS,
        "num": f"passes when the printed number matches, to the reference's precision; {_END}",
        "general": f"passes when the printed values and words match, in order; {_END}",
        "text": (
            f"passes at ROUGE-1 >= {PASS_SCORE['text']:g} (your last printed line; CJK-aware), or when your "
            "last line names the answer, written as in the data, alone or in a sentence naming nothing else"
        ),
        "vis": (
            f"passes when the data match within {100 * TOL:g} % of the axes' span and every declared "
            f"element matches; a figure without plot structure is graded by {_SSIM}"
        ),
    },
}


#: What a text step's badge says passes, per profile (docs/grading.md, "Text and worded answers").
_PASSES = {
    "fair": "to pass: print only the answer, or a sentence naming it, as your last line",
    "cibench": "to pass: print the answer's words alone, as your first output",
}


def passes(profile: str, kind: str) -> str | None:
    """The short rule a ``kind`` step's badge shows under ``profile`` (None: the badge's measure
    says it — only a text step's ROUGE-1 score does not say what to print)."""
    return _PASSES.get(profile) if kind == "text" else None


def criterion(profile: str, kind: str, language: str = "en") -> str:
    """What passes a ``kind`` step under ``profile`` (``language``: the task's, ``en`` | ``zh``)."""
    try:
        words = _CRITERIA[profile][kind]
    except KeyError:
        raise ValueError(f"no pass criterion for a {kind!r} step under profile {profile!r}") from None
    if profile == "cibench" and kind == "text" and language == "zh":
        words = f"{words}; {LATIN_ONLY}"
    return words
