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

Read from the end (issue 27: a dump of every number must not pass).  The answer is read from the output's
last lines: those that together hold at most :func:`allowed` numbers (a table: values and labels) for a
reference holding *m* — 2·m + 2, skipping lines that hold none — and the reference must be there.  A last
line holding more on its own fails: "printed N numbers on one line where the answer has M".  Earlier lines
(a ``df.head()`` printed before the answer) are not read.  A reference without numbers is a name or phrase:
:mod:`.sentence`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from .sentence import named

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


@dataclass(frozen=True)
class Verdict:
    ok: bool
    rule: str  # table | numbers | words
    detail: str  # for a person; never the reference unless the output named it


def allowed(m: int) -> int:
    """How many numbers (a table: cells) the answer's lines may hold for a reference holding ``m``."""
    return 2 * m + 2


def _lines_back(text: str) -> Iterator[tuple[int, str]]:
    """``text``'s lines, last first, without splitting the whole text."""
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        yield start, text[start:end]
        end = start - 1


def read_back(text: str, count: Callable[[str], int], most: int) -> tuple[str, int]:
    """The last lines of ``text`` that together hold at most ``most`` items (as ``count`` counts them) and,
    when the last line holding any holds more on its own, its count (else 0)."""
    total, start = 0, len(text)
    for at, line in _lines_back(text):
        n = count(line)
        if total + n > most:
            return text[start:], (n if total == 0 else 0)
        total, start = total + n, at
    return text[start:], 0


def _counter(pattern: re.Pattern, keep: Callable[[re.Match], bool], most: int) -> Callable[[str], int]:
    """Counts a line's items up to ``most + 1``: a dump's line is never read further than that."""

    def count(line: str) -> int:
        return sum(1 for _ in islice(filter(keep, pattern.finditer(line)), most + 1))

    return count


def _cell(m: re.Match) -> bool:
    return m.group("punct") is None and m.group(0) != "array"


def _read(pred: str, want: list, split: Callable[[str], list], asked: int | None, rule: str) -> Verdict:
    noun, most = ("values" if rule == "table" else "numbers"), allowed(len(want))
    count = _counter(_TOKEN, _cell, most) if rule == "table" else _counter(_NUM, bool, most)
    region, over = read_back(pred, count, most)
    if over:
        said = f"printed more than {most:,} {noun} on one line where the answer has {len(want):,}"
        return Verdict(False, rule, said + f" (at most {most:,} are read)")
    if contains(split(region), want, asked):
        return Verdict(True, rule, "table values matched" if rule == "table" else "numbers matched")
    return Verdict(False, rule, f"your {noun} did not match (the answer is read from the end of your output)")


def verdict(pred: str, ref: str, instruction: str = "") -> Verdict:
    """A prediction's output against the reference, read from the end (module docstring)."""
    ref, asked = ref.strip(), asked_decimals(instruction)
    if "\n" in ref:
        return _read(pred, _cells(ref), _cells, asked, "table")
    ref_numbers = numbers(ref)
    if ref_numbers:
        return _read(pred, ref_numbers, numbers, asked, "numbers")
    said = named(pred, ref, instruction)
    return Verdict(said.ok, "words", said.detail)


def match(pred: str, ref: str, asked: int | None = None) -> tuple[bool, str]:
    """(matched, which rule decided); ``asked``: the decimals the instruction asks for."""
    instruction = "" if asked is None else f"{asked} decimals"
    found = verdict(pred, ref, instruction)
    return found.ok, found.rule
