"""`cibench-lab report` on runs of Qwen benchmark tasks: the original's table, scored as it scores.

A run's finished Qwen attempts are read as the original's output rows
(:mod:`cibench_lab.benchmarks.qwen.results`) and scored by the same code as `cibench-lab qwen score`
(``grading/qwen``): the executable rate re-runs the action code the original re-runs, each item
in its own sandboxed process; Math accuracy is the original's answer rule; Visualization accuracy
asks the VLM judge the ``CIBENCH_LAB_JUDGE_*`` variables configure, and says "not graded"
without one.  The General executable rate is marked "not comparable" when the run's kernels had
no network, or the re-run had none (the sandbox): the original measured it online.
"""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypedDict

from ..benchmarks.qwen.exec import QwenExecutor
from ..benchmarks.qwen.results import REACT, TOOLS, RunOutputs, run_outputs
from ..grading.bounds import bounded
from ..grading.leaderboard import B
from ..grading.qwen.intervals import SECTIONS, cell_cis
from ..grading.qwen.score import ModelScore, score_outputs
from ..grading.qwen.table import as_dict, correctness, counts, grid
from ..store import Store
from ..tasks.library import TaskLibrary
from ..tasks.qwenimport import SPLIT

NOT_COMPARABLE = "not comparable"
NOT_GRADED = "not graded: no judge configured (CIBENCH_LAB_JUDGE_MODEL), or a judged item had no reply"
TOOLS_NOTE = (
    f"({TOOLS}): played with native tool calling, cibench-lab's mode, not the original's ReAct prompt: "
    "not the original's numbers"
)
HEADER = [
    "run",
    "exec Math",
    "exec Visualization",
    "exec General",
    "acc Math",
    "acc Visualization-Hard",
    "acc Visualization-Easy",
]


def _replies(judge_options: dict | None = None) -> Any:
    from ..models.judge import VisionJudge
    from .qwen import QWEN_JUDGE_TOKENS, AskedReplies, _no_judge

    judge = VisionJudge.from_env(**(judge_options or {}))
    if judge is None:
        return _no_judge
    judge.max_tokens = QWEN_JUDGE_TOKENS
    return AskedReplies(judge)


def score_run(
    one: RunOutputs, profile: str, sandbox: bool = True, judge_options: dict | None = None
) -> ModelScore:
    """One run's score under ``profile`` (``qwen``: as the original; ``fair``); the judge is the one
    the ``CIBENCH_LAB_JUDGE_*`` variables describe, ``judge_options`` (``model``, ``base_url``,
    ``api_key_env``; None values ignored) winning."""
    run = QwenExecutor(one.upload, sandbox=sandbox)
    with tempfile.TemporaryDirectory(prefix="cibench-qwen-report-") as tmp:
        folder = Path(tmp)
        for name, png in one.images.items():
            (folder / name).write_bytes(base64.b64decode(png))
        (score,) = score_outputs(one.outs, folder, profile, run, _replies(judge_options))
    return score


def comparable(one: RunOutputs, sandbox: bool) -> bool:
    """Is the run's General executable rate comparable to the original's (measured online)?"""
    return not one.network_off and not sandbox


def qwen_report(
    store: Store,
    lib: TaskLibrary,
    selectors: list[str] | None,
    profile: str,
    judge_options: dict | None = None,
) -> dict:
    """``{"profile", "runs": [...], "task_ids"}``: each run with Qwen attempts scored (the judge:
    :func:`score_run`)."""
    qprofile = profile if profile == "fair" else "qwen"
    runs, task_ids = [], set()
    for one in run_outputs(store, lib, selectors):
        score = score_run(one, qprofile, judge_options=judge_options)
        general = comparable(one, sandbox=True)
        runs.append(entry(score, qprofile, one.run, one.player, one.network_off, general, one.protocol))
        task_ids |= one.task_ids
    return {"profile": qprofile, "runs": runs, "task_ids": task_ids}


class RunEntry(TypedDict):
    """A run's part of the report: its score and its JSON (:func:`entry`)."""

    score: ModelScore
    json: dict[str, Any]


def entry(
    score: ModelScore,
    profile: str,
    run: str,
    player: str,
    network_off: int,
    general_comparable: bool,
    protocol: str = REACT,
) -> RunEntry:
    """A run's part of the report: ``{"score", "json"}``, the JSON with each cell's CI (``cells``)
    and how its model was asked (``protocol``: ``qwen-react``, the original's; ``qwen-tools``)."""
    body = as_dict([score], profile)["models"][0]
    body.update(run=run, player=player, network_off=network_off, general_comparable=general_comparable)
    body.update(protocol=protocol, original_protocol=protocol == REACT)
    body["cells"] = cell_cis(score)
    return {"score": score, "json": body}


def json_part(report: dict) -> dict:
    return {"profile": report["profile"], "runs": [r["json"] for r in report["runs"]]}


CSV_HEADER = [
    "profile",
    "run",
    "player",
    "protocol",
    "section",
    "column",
    "n",
    "value",
    "ci_lo",
    "ci_hi",
    "note",
]


def _note(body: dict, section: str, column: str, score: ModelScore) -> str:
    if section == "executable" and column == "general" and not body["general_comparable"]:
        if score.executable.get(column) is not None:
            return NOT_COMPARABLE
    acc = correctness(score).get(column) if section == "accuracy" else None
    return "not graded" if acc is not None and not acc.graded else ""


def csv_rows(report: dict) -> Iterator[Sequence[object]]:
    """One row per run and cell of the table: its items (n), value x100 and 95% CI, and a note
    (``not comparable``, ``not graded``)."""
    yield CSV_HEADER
    for r in report["runs"]:
        body = r["json"]
        for section in SECTIONS:
            for column, c in body["cells"][section].items():
                note = _note(body, section, column, r["score"])
                head = [report["profile"], body["run"], body["player"], body["protocol"], section, column]
                yield [*head, c["n"], c["value"], c["ci_lo"], c["ci_hi"], note]


def _shown(body: dict, section: str, column: str, score: ModelScore) -> str:
    c = body["cells"][section][column]
    note = _note(body, section, column, score)
    if note == "not graded":
        return note
    text = bounded(c["value"], c["ci_lo"], c["ci_hi"])
    return f"{text} ({note})" if note else text


def render(report: dict) -> str:
    """The table: executable rate Math / Visualization / General, accuracy Math / Hard / Easy, each
    value with its 95% CI."""
    rows, count_rows = [], []
    for r in report["runs"]:
        score, body = r["score"], r["json"]
        cells = [_shown(body, s, c, score) for s in SECTIONS for c in body["cells"][s]]
        label = body["run"] if body["original_protocol"] else f"{body['run']} ({body['protocol']})"
        rows.append([label, *cells])
        count_rows.append([label, *counts(score)])
    notes = [
        f"Qwen's Code Interpreter Benchmark (20231206) · profile {report['profile']}",
        grid(HEADER, rows),
        f"95% CIs: percentile bootstrap over items ({B:,} resamples, seed 0)",
        "items (executable/all and missing code; right/all)",
        grid(HEADER, count_rows),
        f"{NOT_COMPARABLE}: the code ran without network (the run's kernels or the re-run's sandbox); "
        "the original measured General online",
    ]
    if any(not r["json"]["original_protocol"] for r in report["runs"]):
        notes.append(TOOLS_NOTE)
    if any(c == "not graded" for row in rows for c in row):
        notes.append(NOT_GRADED)
    return "\n".join(notes)


class QwenSection:
    """The Qwen benchmark's table as a section of ``cibench-lab report`` (:mod:`.sections`)."""

    name = "qwen"
    split = SPLIT
    title = "Qwen's benchmark"
    short = "Qwen"
    empty = "Qwen's Code Interpreter Benchmark: no finished attempt yet"

    def build(
        self, store: Store, lib: TaskLibrary, runs: list[str] | None, profile: str, judge: dict | None = None
    ) -> dict:
        return qwen_report(store, lib, runs, profile, judge)

    def json_part(self, part: dict) -> dict:
        return json_part(part)

    def csv_rows(self, part: dict) -> Iterator[Sequence[object]]:
        return csv_rows(part)

    def render(self, part: dict) -> str:
        return render(part)

    def plot(self, part: dict, path: str) -> None:
        from .qwen_plot import plot_qwen

        plot_qwen(part, path)


SECTION = QwenSection()
