"""A new task's step kind, from what its solution showed when it ran (``tasks new``).

A tag (``cibench:KIND``) sets the kind; otherwise it is inferred: one figure -> ``vis``, one
printed number -> ``num``, one short printed line -> ``text``, nothing -> ``exec``.  Either way
the outputs must have the kind's one shape (:mod:`.checks` says the same for the build); an
output that has none, or not the tagged kind's, is a problem said in the teacher's words
("step 4 prints two numbers; a num step prints one").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .checks import NUMBER_RE, TEXT_MAX_CHARS, output_text

_SEPARATORS = re.compile(r"[\s,;]+")
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
#: What each kind's solution must show, for the problems' second half.
SHAPE = {
    "exec": "an exec step prints nothing",
    "num": "a num step prints one number",
    "text": "a text step prints one short line",
    "vis": "a vis step shows one figure and prints nothing",
}


@dataclass(frozen=True)
class Inferred:
    """The step's kind and what its solution showed, or the problem with it (``kind`` then None)."""

    kind: str | None
    answer: str = ""  # a short description of the answer: "3.14", "'Thur Fri'", "a figure"
    problem: str | None = None


def count(n: int, what: str) -> str:
    """``two numbers``, ``one figure`` (digits above ten)."""
    word = _WORDS[n] if n < len(_WORDS) else str(n)
    return f"{word} {what}" + ("" if n == 1 else "s")


def _quote(text: str, limit: int = 40) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _is_image(out: dict) -> bool:
    return out.get("output_type") == "display_data" and "image/png" in (out.get("data") or {})


def _is_answer(out: dict) -> bool:
    kind = out.get("output_type")
    return kind == "execute_result" or (kind == "stream" and out.get("name") == "stdout")


def _numbers(text: str) -> int | None:
    """How many numbers ``text`` is made of (None: it holds something else too)."""
    parts = [p for p in _SEPARATORS.split(text.strip()) if p]
    return len(parts) if parts and all(NUMBER_RE.fullmatch(p) for p in parts) else None


def infer(tag: str | None, outputs: list[dict]) -> Inferred:
    """The kind of a step that ran without error (``tag``: the kind its cells' tag sets)."""
    stderr = [o for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    if stderr:
        said = _quote(output_text(stderr[0]), 80)
        return Inferred(
            None, problem=f"writes to stderr ({said}); a solution must not (a warning: silence it)"
        )
    images = [o for o in outputs if _is_image(o)]
    answers = [o for o in outputs if _is_answer(o)]
    others = [o for o in outputs if not _is_image(o) and not _is_answer(o)]
    if others:
        return Inferred(None, problem="displays an object without printing it; print the answer with print()")
    if images:
        return _figure(tag, len(images), answers)
    if not answers:
        if tag not in (None, "exec"):
            return Inferred(None, problem=f"prints nothing; {SHAPE[tag]}")
        return Inferred("exec", "nothing")
    if len(answers) > 1:
        shown = ", ".join(_quote(output_text(a), 20) for a in answers[:3])
        return Inferred(
            None, problem=f"prints {count(len(answers), 'output')} ({shown}); print the answer in one go"
        )
    return _printed(tag, output_text(answers[0]).strip())


def _figure(tag: str | None, figures: int, answers: list[dict]) -> Inferred:
    if tag not in (None, "vis"):
        return Inferred(None, problem=f"shows a figure; {SHAPE[tag]}")
    if figures > 1:
        return Inferred(None, problem=f"shows {count(figures, 'figure')}; a vis step shows one")
    if answers:
        printed = _quote(output_text(answers[0]))
        return Inferred(
            None,
            problem=f"shows a figure and prints {printed}; {SHAPE['vis']} (end the cell with plt.show())",
        )
    return Inferred("vis", "a figure")


def _printed(tag: str | None, text: str) -> Inferred:
    numbers = _numbers(text)
    lines = len(text.splitlines())
    if tag in ("exec", "vis"):
        return Inferred(None, problem=f"prints {_quote(text)}; {SHAPE[tag]}")
    if tag != "text" and numbers == 1:
        return Inferred("num", text)
    if tag == "num":
        what = count(numbers, "number") if numbers else _quote(text)
        return Inferred(None, problem=f"prints {what}; {SHAPE['num']}")
    if tag is None and numbers and numbers > 1:
        return Inferred(
            None,
            problem=f"prints {count(numbers, 'number')}; a num step prints one (tag it cibench:text if "
            "they are one answer)",
        )
    if not text:
        return Inferred(None, problem=f"prints an empty line; {SHAPE['text']}")
    if lines > 1:
        shape = SHAPE["text"] if tag == "text" else "a step's answer is one number or one short line"
        return Inferred(None, problem=f"prints {count(lines, 'line')}; {shape}")
    if len(text) > TEXT_MAX_CHARS:
        return Inferred(
            None, problem=f"prints {len(text)} characters; a text step prints at most {TEXT_MAX_CHARS}"
        )
    return Inferred("text", _quote(text))
