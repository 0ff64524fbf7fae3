"""How the structural plot grade words what differs (``grading/plot.py``): element names, the
series' nouns, repeated differences counted. Never a reference value."""

from __future__ import annotations

import re

#: Element names as the badge says them (``PLURAL``: those that take "differ").
PLURAL = {"colors", "ticks"}
NAMES = {
    "title": "title",
    "x_label": "x label",
    "y_label": "y label",
    "legend": "legend",
    "colors": "colours",
    "colorbar": "colour bar",
    "ticks": "ticks",
    "figsize": "figure size",
    "chart_type": "chart type",
}
NOUNS = {"bar": "bars", "barh": "bars", "scatter": "points", "segments": "segment ends"}


#: A difference said of one series or plot area, and how it reads for several.
_COUNTABLE = (
    (re.compile(r"^an? (?P<noun>.+) missing$"), "{n} {nouns} missing"),
    (re.compile(r"^an extra (?P<noun>.+)$"), "{n} extra {nouns}"),
    (re.compile(r"^an? (?P<noun>.+) differs$"), "{n} {nouns} differ"),
    (re.compile(r"^(?P<noun>a different number of .+)$"), "{noun} in {n} series"),
)


def counted(differences: list[str]) -> list[str]:
    """The differences once each, in first-seen order; a repeated one counted ("2 extra lines")."""
    counts: dict[str, int] = {}
    for d in differences:
        counts[d] = counts.get(d, 0) + 1
    return [_times(d, n) for d, n in counts.items()]


def _times(difference: str, n: int) -> str:
    if n == 1:
        return difference
    for pattern, template in _COUNTABLE:
        m = pattern.match(difference)
        if m:
            noun = m["noun"]
            return template.format(n=n, noun=noun, nouns=noun if noun.endswith("s") else noun + "s")
    return f"{difference} ({n} times)"


def with_article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def kind_name(kind: str) -> str:
    return {"bar": "bar group", "barh": "bar group", "heatmap": "heatmap", "pie": "pie wedge"}.get(kind, kind)
