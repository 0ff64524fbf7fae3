"""`cibench-lab report` on runs of Qwen benchmark tasks: the original's table, scored as it scores.

A run's finished Qwen attempts are read as the original's output rows
(:mod:`cibench_lab.engine.qwen_results`) and scored by the same code as `cibench-lab qwen score`
(``grading/qwen``): the executable rate re-runs the action code the original re-runs, each item
in its own sandboxed process; Math accuracy is the original's answer rule; Visualization accuracy
asks the VLM judge the ``CIBENCH_LAB_JUDGE_*`` variables configure, and says "not graded"
without one.  The General executable rate is marked "not comparable" when the run's kernels had
no network, or the re-run had none (the sandbox): the original measured it online.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from ..engine.qwen_exec import QwenExecutor
from ..engine.qwen_results import RunOutputs, run_outputs
from ..grading.qwen.score import ModelScore, score_outputs
from ..grading.qwen.table import EXEC_COLUMNS, acc_cell, as_dict, cell, correctness, counts, grid, rate_of
from ..store import Store
from ..tasks.library import TaskLibrary

NOT_COMPARABLE = "not comparable"
NOT_GRADED = "not graded: no judge configured (CIBENCH_LAB_JUDGE_MODEL), or a judged item had no reply"
HEADER = [
    "run",
    "exec Math",
    "exec Visualization",
    "exec General",
    "acc Math",
    "acc Visualization-Hard",
    "acc Visualization-Easy",
]


def _replies() -> Any:
    from ..models.judge import VisionJudge
    from .qwen import QWEN_JUDGE_TOKENS, AskedReplies, _no_judge

    judge = VisionJudge.from_env()
    if judge is None:
        return _no_judge
    judge.max_tokens = QWEN_JUDGE_TOKENS
    return AskedReplies(judge)


def score_run(one: RunOutputs, profile: str, sandbox: bool = True) -> ModelScore:
    """One run's score under ``profile`` (``qwen``: as the original; ``fair``)."""
    run = QwenExecutor(one.upload, sandbox=sandbox)
    with tempfile.TemporaryDirectory(prefix="cibench-qwen-report-") as tmp:
        folder = Path(tmp)
        for name, png in one.images.items():
            (folder / name).write_bytes(base64.b64decode(png))
        (score,) = score_outputs(one.outs, folder, profile, run, _replies())
    return score


def comparable(one: RunOutputs, sandbox: bool) -> bool:
    """Is the run's General executable rate comparable to the original's (measured online)?"""
    return not one.network_off and not sandbox


def qwen_report(store: Store, lib: TaskLibrary, selectors: list[str] | None, profile: str) -> dict:
    """``{"profile", "runs": [...], "task_ids"}``: each run with Qwen attempts scored."""
    qprofile = profile if profile == "fair" else "qwen"
    runs, task_ids = [], set()
    for one in run_outputs(store, lib, selectors):
        score = score_run(one, qprofile)
        body = as_dict([score], qprofile)["models"][0]
        body.update(run=one.run, player=one.player, network_off=one.network_off)
        body["general_comparable"] = comparable(one, sandbox=True)
        runs.append({"score": score, "json": body})
        task_ids |= one.task_ids
    return {"profile": qprofile, "runs": runs, "task_ids": task_ids}


def json_part(report: dict) -> dict:
    return {"profile": report["profile"], "runs": [r["json"] for r in report["runs"]]}


def render(report: dict) -> str:
    """The table: executable rate Math / Visualization / General, accuracy Math / Hard / Easy."""
    rows, count_rows = [], []
    for r in report["runs"]:
        score, body = r["score"], r["json"]
        execs = [cell(rate_of(score, c)) for c in EXEC_COLUMNS]
        if not body["general_comparable"] and execs[2] != "None":
            execs[2] += f" ({NOT_COMPARABLE})"
        rows.append([body["run"], *execs, *(acc_cell(a) for a in correctness(score).values())])
        count_rows.append([body["run"], *counts(score)])
    notes = [
        f"Qwen's Code Interpreter Benchmark (20231206) · profile {report['profile']}",
        grid(HEADER, rows),
        "items (executable/all and missing code; right/all)",
        grid(HEADER, count_rows),
        f"{NOT_COMPARABLE}: the code ran without network (the run's kernels or the re-run's sandbox); "
        "the original measured General online",
    ]
    if any(c == "not graded" for row in rows for c in row):
        notes.append(NOT_GRADED)
    return "\n".join(notes)
