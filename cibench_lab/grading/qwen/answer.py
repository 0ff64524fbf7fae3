"""Math accuracy: the last number the original's pattern finds in a completion, against the gold.

The original (``metrics/gsm8k.py``) strips dots from both ends, writes every newline as the two
characters ``\\n`` and takes the last match of one pattern: a number preceded by white space or
one of ``$ % # {`` and followed by white space, ``. , }`` or the end.  What follows from it, and
is reproduced under ``qwen``:

- ``$255`` counts (``$`` may precede), ``{42}`` too;
- ``1,050`` reads as 1 (the pattern's first alternative wins and a comma may follow a number);
- ``290.0`` reads as 290 (a fraction must end in a non-zero digit, and ``.`` may follow);
- a number at the start or the end of a line is invisible (after ``\\n`` comes ``n``, before it
  ``\\``), so one alone on a line — a code block's printed result — never counts;
- every part of the pattern is optional, so an empty match (at a ``.`` or ``,`` after a space)
  can be the last one, and then the answer is invalid.

The gold is read from a GSM8K answer (``… #### N``) by the same function, as the original does
(its ``is_correct`` runs ``extract_answer`` on both), so a gold ``#### 2,100`` is 2 under ``qwen``.
``fair`` reads a number with thousands commas whole and sees numbers at line ends
(:func:`fair_answer`), on both sides: its gold is :func:`fair_gold` (``#### 2,100`` is 2100).
"""

from __future__ import annotations

import re
from collections.abc import Callable

INVALID = "[invalid]"

_LAST_NUMBER = re.compile(
    r"(?<=(\s|[\$%#{]))([+-])?(?=(\S))(0|([1-9](\d*|\d{0,2}(,\d{3})*)))?(\.\d*[1-9])?(?=(\s|[.,}]|$))"
)
_FAIR_NUMBER = re.compile(r"(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")


def _value(text: str) -> int | float | str:
    """What the original's ``eval`` makes of the match ("", or a bare sign: invalid)."""
    text = text.replace(",", "").replace("+", "")
    if not any(ch.isdigit() for ch in text):
        return INVALID
    return float(text) if "." in text else int(text)


def extract_answer(completion: str) -> int | float | str:
    """The original's answer: the last match's number, or :data:`INVALID`."""
    flat = completion.strip(".").replace("\n", "\\n")
    found = list(_LAST_NUMBER.finditer(flat))
    return _value(found[-1].group()) if found else INVALID


def gold_answer(answer: str, read: Callable[[str], int | float | str] = extract_answer) -> int | float:
    """A GSM8K answer's gold (the last number the same pattern finds: its ``#### N``); ``read``:
    how the profile reads a number (``fair``: :func:`fair_answer`, see :func:`fair_gold`)."""
    gold = read(answer)
    if isinstance(gold, str):
        raise ValueError(f"no gold answer found in {answer[-80:]!r}")
    return gold


def math_correct(completion: str, gold: str) -> bool:
    """The original's ``is_correct``: the completion's answer equals the gold's (290 == 290.0)."""
    return extract_answer(completion) == gold_answer(gold)


def fair_answer(completion: str) -> int | float | str:
    """``fair``: the last number anywhere, thousands commas read whole, a trailing ``.0`` kept."""
    found = _FAIR_NUMBER.findall(completion)
    return _value(found[-1]) if found else INVALID


def fair_gold(answer: str) -> int | float:
    """``fair``'s gold: the answer's last number read as :func:`fair_answer` reads one."""
    return gold_answer(answer, fair_answer)


def fair_correct(completion: str, gold: str) -> bool:
    return fair_answer(completion) == fair_gold(gold)
