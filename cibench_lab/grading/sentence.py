"""A worded answer in a sentence, the `fair` way (docs/grading.md, "Read from the end").

The answer is read from the output's last non-blank line.  It passes when that line names the reference
as a whole word or phrase (CJK-aware tokens, case folded: ``Male`` is not inside ``Female``) and names
nothing else: every other word must be a word of the step's instruction or a common word (:data:`COMMON`),
never a word of the reference again, never one of :data:`NEVER` (negations, yes/no, true/false), and at
most :data:`MAX_EXTRA` of them.  A dump of every label therefore fails (the other labels are names the
question does not use), and so does ``not normal`` for ``normal`` or ``normal not normal`` for ``not normal``.

The step does not know its data (a :class:`~cibench_lab.tasks.model.Step` carries no data path, and
grading sees only the step), so "the other candidates" are approximated by "any word the question does not
use".  A translated answer (``男性`` for ``Male``) is not read: without a judge the answer must be written
as in the data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .cjk import _CJK, cjk_tokens

#: Words a sentence around the answer may use besides the instruction's own.
COMMON = frozenset(
    """a an the is are was were be been it its this that these those there here of in on at for to from with
    by as and answer answers result results value values name names group groups category categories class
    classes label labels feature features column columns row rows item items one highest lowest largest
    smallest biggest most least greatest greater higher lower larger smaller more less best worst top max min
    maximum minimum which what who whose final so thus therefore
    答 案 结 果 为 是 的 了 最 大 小 高 低 多 少 组 类 别 列 特 征 名 称""".split()
)
#: Words that change what a sentence names: never allowed beside the answer (unless the answer has them).
NEVER = frozenset(
    "not no non yes true false none null isn aren doesn don didn wasn weren 不 否 非 无 没 未".split()
)
#: Common words that are an answer themselves when the answer is a yes/no one (``是`` beside ``否``).
_YES = frozenset({"是", "对", "错"})
MAX_EXTRA = 20
_CJK_RE = re.compile(f"[{_CJK}]")


@dataclass(frozen=True)
class Named:
    ok: bool
    detail: str  # names the reference only when the output named it (ok)


def last_lines(text: str, n: int) -> str:
    """The last ``n`` non-blank lines of ``text``."""
    found: list[str] = []
    end = len(text)
    while end > 0 and len(found) < n:
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].strip():
            found.append(text[start:end])
        end = start - 1
    return "\n".join(reversed(found))


def last_line(text: str) -> str:
    return last_lines(text, 1)


def looked_for(ref: str) -> str:
    """What the rule looks for, said without the reference: a name, a phrase of n words, n values."""
    words = cjk_tokens(ref)
    if words and all(w.isdigit() for w in words):
        return "a number" if len(words) == 1 else f"{len(words)} numbers"
    return "a name" if len(words) == 1 else f"a phrase of {len(words)} words"


def _last_at(tokens: list[str], want: list[str]) -> int:
    n = len(want)
    for start in range(len(tokens) - n, -1, -1):
        if tokens[start : start + n] == want:
            return start
    return -1


def _known(word: str, allowed: set[str]) -> bool:
    return word in allowed or (len(word) > 3 and word.endswith("s") and word[:-1] in allowed)


def named(out: str, ref: str, instruction: str) -> Named:
    """Does the output's last line name ``ref`` and nothing else?"""
    want, line = cjk_tokens(ref), last_line(out)
    tokens = cjk_tokens(line)
    at = _last_at(tokens, want) if want else -1
    if at >= 0:
        extra = tokens[:at] + tokens[at + len(want) :]
        allowed = (set(cjk_tokens(instruction)) | COMMON) - set(want) - NEVER
        if set(want) & (NEVER | _YES):
            allowed -= _YES
        if len(extra) <= MAX_EXTRA and all(_known(w, allowed) for w in extra):
            return Named(True, f"looked for {looked_for(ref)}: {ref.strip()}; named on your last line")
    hint = "written as in the data"
    if _CJK_RE.search(line) and not _CJK_RE.search(ref):
        hint += " (a translation is not read without a judge)"
    return Named(
        False,
        f"looked for {looked_for(ref)} on your last line, alone or in a sentence naming nothing else, "
        f"{hint}: not found",
    )
