"""A Qwen output folder scored as the original's ``--eval-only`` scores it.

Per model: the executable rate of each family from the ``visualization`` and ``general`` files
(a later file's rate of a tag replaces an earlier one's, as the original's one dictionary is
updated task after task), Math accuracy from the ``gsm8k`` file (``qwen``: the ``acc`` the
original recorded, recomputed only where it is missing; ``fair``: recomputed with
:func:`~.answer.fair_correct`), and Visualization-Hard/-Easy accuracy from the judge's replies
(``None`` when not graded: no judge, or a judged item without a reply).  Running code and
asking a judge are given as functions, so this module runs nothing itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .answer import fair_correct, math_correct
from .execrate import ExecItem, Rate, exec_item, in_task, rates
from .judge import VERDICTS, VisItem, is_easy, judge_prompt, judged_links
from .outputs import OutputFile, output_files, rebase
from .react import markers_for

PROFILES = ("qwen", "fair")


@dataclass(frozen=True)
class ExecResult:
    executable: bool
    error: str = ""


Runner = Callable[[ExecItem], ExecResult]
Replies = Callable[[OutputFile, VisItem], "str | None"]


@dataclass
class Accuracy:
    """Right over count; ``percent`` None when nothing is counted or it was not graded."""

    count: int = 0
    right: int = 0
    graded: bool = True
    unanswered: int = 0  # judged items without a reply
    outcomes: list[bool] = field(default_factory=list)  # each counted item's, in order

    def add(self, right: bool) -> None:
        self.count += 1
        self.right += right
        self.outcomes.append(bool(right))

    @property
    def percent(self) -> float | None:
        return self.right / self.count * 100 if self.count and self.graded else None


@dataclass
class ModelScore:
    model: str
    executable: dict[str, Rate] = field(default_factory=dict)
    math: Accuracy | None = None
    vis: dict[str, Accuracy] = field(default_factory=dict)
    items: list[dict] = field(default_factory=list)
    skipped_lines: int = 0


def score_folder(folder: Path, profile: str, run: Runner, replies: Replies) -> list[ModelScore]:
    """Every model's score in ``folder``."""
    return score_outputs(output_files(folder), folder, profile, run, replies)


def score_outputs(
    outs: list[OutputFile], folder: Path, profile: str, run: Runner, replies: Replies
) -> list[ModelScore]:
    """Every model's score over its output files ``outs``, in order (images found in ``folder``).
    A file's task may also be ``math`` (our runs' benchmark rows tagged only ``math``)."""
    if profile not in PROFILES:
        raise ValueError(f"profile {profile!r}: one of {', '.join(PROFILES)}")
    scores: dict[str, ModelScore] = {}
    for out in outs:
        one = scores.setdefault(out.model, ModelScore(out.model))
        one.skipped_lines += out.skipped
        if out.task == "gsm8k":
            one.math = _math(out, profile, one.items)
            continue
        one.executable.update(_exec(out, run, one.items))
        if out.task == "visualization":
            one.vis = _vis(out, folder, profile, replies, one.items)
    return list(scores.values())


def _math(out: OutputFile, profile: str, items: list[dict]) -> Accuracy:
    acc = Accuracy()
    for line, row in enumerate(out.rows):
        completion, gold = str(row.get("completion", "")), str(row.get("answer", ""))
        if profile == "fair":
            right = fair_correct(completion, gold)
        elif "acc" in row:
            right = bool(row["acc"])
        else:
            right = math_correct(completion, gold)
        acc.add(right)
        items.append({"file": out.path.name, "line": line, "family": "math-accuracy", "right": right})
    return acc


def _exec(out: OutputFile, run: Runner, items: list[dict]) -> dict[str, Rate]:
    markers = markers_for(out.model)
    tags, executable, missing = [], [], []
    for line, row in enumerate(out.rows):
        if not in_task(row, out.task):
            raise ValueError(f"{out.path.name}: line {line + 1} has tags {row.get('tags')!r}, not {out.task}")
        item = exec_item(line, row, markers)
        result = ExecResult(False, "missing code") if item.missing else run(item)
        tags.append(item.tags)
        executable.append(result.executable)
        missing.append(item.missing)
        items.append(
            {
                "file": out.path.name,
                "line": line,
                "family": "executable",
                "tags": item.tags,
                "missing_code": item.missing,
                "executable": result.executable,
                "error": result.error,
            }
        )
    return rates(tags, executable, missing)


def _vis(out: OutputFile, folder: Path, profile: str, replies: Replies, items: list[dict]) -> dict:
    markers, verdict = markers_for(out.model), VERDICTS[profile]
    acc = {"hard": Accuracy(), "easy": Accuracy()}
    for line, row in enumerate(out.rows):
        if "visualization" not in str(row.get("tags", "")):
            continue
        query, gen = str(row.get("query", "")), str(row.get("gen", ""))
        links = judged_links(gen, lambda link: rebase(link, folder) is not None, markers)
        files = tuple(str(rebase(link, folder)) for link in links)
        item = VisItem(line, is_easy(query), judge_prompt(query, str(row.get("lang", "en"))), files)
        bucket = acc["easy" if item.easy else "hard"]
        reply = replies(out, item) if files else None
        if files and reply is None:
            bucket.unanswered += 1
            bucket.graded = False
        right = bool(files) and reply is not None and verdict(reply)
        bucket.add(right)
        detail = {
            "file": out.path.name,
            "line": line,
            "family": "visualization-" + ("easy" if item.easy else "hard"),
        }
        items.append({**detail, "judged": bool(files), "reply": reply, "right": right})
    return acc
