"""The shotgun (issue 27): one output printing every number a step could want — every integer to 70,000 and
every decimal at 1–4 places, about 600 K numbers — or every label, or a big table, graded against every
built-in `num`, `general` and `text` step offline.  Under `fair` it passes none; `cibench` keeps
OpenCompass's rules (a substring of the first block, trimmed to 1,024 characters), so its count is only
reported.  Each step's own reference output still passes under both profiles.

Grading is in-process on the steps' stored references (no kernel); each layout is rendered once for all steps.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import pytest

from cibench_lab.grading import TurnOutput
from cibench_lab.grading.cibench import grade_cibench, render_turns
from cibench_lab.grading.cjk import cjk_tokens
from cibench_lab.grading.fair import grade_fair
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

pytestmark = pytest.mark.fast

KINDS = ("num", "general", "text")


@cache
def steps() -> tuple:
    lib = TaskLibrary.load([builtin_dir()])
    ours = (s for t in lib.tasks.values() for s in t.steps if s.benchmark_item is None)
    return tuple(s for s in ours if s.kind in KINDS)


def numbers() -> list[str]:
    """Every integer 0..70,000 and every decimal at 1–4 places over a range that covers the answers."""
    out = [str(i) for i in range(70_001)]
    for places, top in ((1, 1000), (2, 1000), (3, 100), (4, 30)):
        out += [f"{k / 10**places:.{places}f}" for k in range(top * 10**places)]
        out += [f"-{k / 10**places:.{places}f}" for k in range(1, 10**places + 1)]
    return out


def labels() -> list[str]:
    """Every word any built-in answer uses: a superset of each column's labels.  Longest last: a dump's last
    line is read like any answer, so a dump ending on a one-word answer would be that guess, not the dump."""
    words = {w for s in steps() for w in cjk_tokens(s.reference.value or "") if not w.isdigit()}
    return sorted(words, key=lambda w: (len(w), w))


def table(values: list[str], columns: int = 3) -> str:
    """A big DataFrame-like print: a header, then an index and ``columns`` values per row."""
    rows = [" ".join(["   "] + [f"c{j}" for j in range(columns)])]
    for i in range(0, len(values) - columns + 1, columns):
        rows.append(" ".join([str(i // columns), *values[i : i + columns]]))
    return "\n".join(rows) + "\n"


def parts(text: str, size: int = 900_000) -> list[str]:
    """``text`` cut at line or space boundaries into outputs under the old 1,000,000-character read limit."""
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            end = max(text.rfind("\n", start, end), text.rfind(" ", start, end)) + 1
        out.append(text[start:end])
        start = end
    return out


@cache
def layouts() -> dict[str, str]:
    """Each dump whole (about 4 M characters) and, but for the table, in parts of at most 900,000 characters
    (the old rule read up to 1,000,000), one output each."""
    nums, words = numbers(), labels()
    dumps = {
        "numbers on one line": " ".join(nums) + "\n",
        "a number per line": "\n".join(nums) + "\n",
        "numbers as a table": table(nums),
        "labels on one line": " ".join(words) + "\n",
        "a label per line": "\n".join(words) + "\n",
        "labels and numbers": " ".join(words + nums[:1000]) + "\n",
    }
    found = {}
    for name, text in dumps.items():
        found[name] = text
        if len(text) > 900_000 and name != "numbers as a table":
            found.update({f"{name}, part {i + 1}": part for i, part in enumerate(parts(text))})
    return found


@cache
def passes() -> dict[str, dict[int, set[str]]]:
    """Per profile, step (by position in :func:`steps`) -> the layouts that passed it."""
    found: dict[str, dict[int, set[str]]] = {"cibench": {}, "fair": {}}
    for name, text in layouts().items():
        turns = [TurnOutput("print(everything)", [{"output_type": "stream", "name": "stdout", "text": text}])]
        rendered = render_turns(turns)
        for i, s in enumerate(steps()):
            for grader in (grade_cibench, grade_fair):
                grade = grader(s, turns, rendered)
                if grade.passed:
                    found[grade.profile].setdefault(i, set()).add(name)
    return found


def by_kind(passed: dict[int, set[str]]) -> dict[str, str]:
    total = Counter(s.kind for s in steps())
    hit = Counter(steps()[i].kind for i in passed)
    return {k: f"{hit[k]} of {total[k]}" for k in KINDS}


def test_the_builtin_set_has_every_kind_the_shotgun_aims_at():
    kinds = Counter(s.kind for s in steps())
    assert all(kinds[k] > 0 for k in KINDS), kinds
    assert len(numbers()) > 550_000 and len(labels()) > 100


def test_the_shotgun_passes_no_step_under_fair():
    found = passes()
    print("\nsteps the shotgun passes: cibench", by_kind(found["cibench"]), "fair", by_kind(found["fair"]))
    per_layout = Counter(name for names in found["fair"].values() for name in names)
    assert not found["fair"], (by_kind(found["fair"]), per_layout)


def test_every_reference_passes_against_itself_under_both_profiles():
    failed = []
    for s in steps():
        turns = [TurnOutput(s.code, list(s.outputs))]
        rendered = render_turns(turns)
        for grader in (grade_cibench, grade_fair):
            grade = grader(s, turns, rendered)
            if not grade.passed:
                failed.append((s.index, s.kind, grade.profile, grade.detail))
    assert not failed, failed[:10]
