"""Values compared the `fair` way: numbers on token boundaries, with a tolerance fitted
to the reference's precision; tables (DataFrame / Series / array prints) token by token.

Rules (docs/grading.md, "fair"):

* A number is a token: ``5`` never matches inside ``15`` or ``x5`` or ``1.5``.
* A reference written with *d* decimals matches a prediction that rounds to it
  (|p − r| ≤ ½·10⁻ᵈ, scaled by the exponent for ``1.2e-05``).  When the step asks
  for *n* decimals, ½·10⁻ⁿ is allowed too, so 0.8333 matches 0.833333.
  An integer reference needs an equal value (``42.0`` matches ``42``; ``42.4`` does not).
  ``nan`` matches ``nan``; ``inf`` matches ``inf`` of the same sign.
* A one-line reference with numbers: its numbers must appear, in order and
  adjacent, among the prediction's numbers (labels around them do not matter).
* A multi-line reference (a DataFrame, Series, array, list print): its values and
  labels (numbers and words; not spacing, punctuation, quotes or numpy's
  ``array(...)`` wrapper) must appear in order in the prediction's, numbers
  compared as above.  Column alignment, float display width, ``print`` vs
  ``repr`` therefore do not matter; values and labels do.
* A reference without numbers: its word tokens must appear in order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_NUM = re.compile(
    r"(?<![\w.])(?P<sign>[-+]?)(?:(?P<int>\d+)(?:\.(?P<frac>\d*))?|\.(?P<frac2>\d+))"
    r"(?:[eE](?P<exp>[-+]?\d+))?(?![\w]|\.\d)"
    r"|(?<![\w.])(?P<ssign>[-+]?)(?P<special>nan|inf(?:inity)?)(?!\w)",
    re.IGNORECASE,
)
_TOKEN = re.compile(_NUM.pattern + r"|(?P<word>[^\W\d_]+|\d+)|(?P<punct>[^\s\w'\"`])", re.IGNORECASE)
_ASKED = [
    re.compile(r"(\d+|one|two|three|four|five|six)[\s-]*(?:decimal|d\.p\.|digits? after)", re.I),
    re.compile(r"保留\s*(\d+|[一二三四五六])\s*位"),
]
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WORDS.update({"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6})


@dataclass(frozen=True)
class Num:
    value: float
    decimals: int | None  # None: an integer literal (exact)
    exp: int = 0


Token = Num | str


def asked_decimals(instruction: str) -> int | None:
    """Decimals the instruction asks for ("round to 4 decimal places", "保留2位小数")."""
    for pattern in _ASKED:
        m = pattern.search(instruction or "")
        if m:
            word = m.group(1).lower()
            return int(word) if word.isdigit() else _WORDS.get(word)
    return None


def _num(m: re.Match) -> Num:
    if m.group("special"):
        word = m.group("special").lower()
        neg = m.group("ssign") == "-"
        return Num(math.nan if word == "nan" else (-math.inf if neg else math.inf), None)
    frac = m.group("frac") if m.group("frac") is not None else m.group("frac2")
    exp = int(m.group("exp") or 0)
    text = f"{m.group('sign')}{m.group('int') or '0'}.{frac or '0'}e{exp}"
    decimals = None if frac is None and not m.group("exp") else len(frac or "")
    return Num(float(text), decimals, exp)


def numbers(text: str) -> list[Num]:
    return [_num(m) for m in _NUM.finditer(text)]


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        if m.group("word") is not None:
            out.append(m.group("word"))
        elif m.group("punct") is not None:
            out.append(m.group("punct"))
        else:
            out.append(_num(m))
    return out


def close(pred: Num, ref: Num, asked: int | None = None) -> bool:
    if math.isnan(ref.value) or math.isnan(pred.value):
        return math.isnan(ref.value) and math.isnan(pred.value)
    if math.isinf(ref.value) or math.isinf(pred.value):
        return ref.value == pred.value
    if ref.decimals is None:
        return pred.value == ref.value
    tol = 0.5 * 10.0 ** (ref.exp - ref.decimals)
    if asked is not None:
        tol = max(tol, 0.5 * 10.0**-asked)
    return abs(pred.value - ref.value) <= tol * (1 + 1e-9) + 1e-12 * abs(ref.value)


def _same(p: Token, r: Token, asked: int | None) -> bool:
    if isinstance(r, Num):
        return isinstance(p, Num) and close(p, r, asked)
    return p == r


def contains(pred: Sequence[Token], ref: Sequence[Token], asked: int | None = None) -> bool:
    """``ref`` appears as a contiguous run of ``pred`` (numbers compared with tolerance)."""
    if not ref:
        return True
    n = len(ref)
    first = ref[0]
    for start in range(len(pred) - n + 1):
        if not _same(pred[start], first, asked):
            continue
        if all(_same(pred[start + i], ref[i], asked) for i in range(1, n)):
            return True
    return False


def _cells(text: str) -> list[Token]:
    """A table's values and labels: punctuation and numpy's ``array`` wrapper dropped."""
    return [t for t in tokens(text) if isinstance(t, Num) or (t.isalnum() and t != "array")]


def match(pred: str, ref: str, asked: int | None = None) -> tuple[bool, str]:
    """(matched, which rule decided) for a prediction's output against the reference."""
    ref = ref.strip()
    if "\n" in ref:
        return contains(_cells(pred), _cells(ref), asked), "table"
    ref_numbers = numbers(ref)
    if ref_numbers:
        return contains(numbers(pred), ref_numbers, asked), "numbers"
    words = [t for t in tokens(ref) if isinstance(t, str)]
    return contains([t for t in tokens(pred) if isinstance(t, str)], words), "words"
