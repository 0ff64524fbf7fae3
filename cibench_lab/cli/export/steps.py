"""A transcript's cells: the title, and per step its instruction, its runs and its grade."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from ...grading.outcomes import OUTCOME_WORDS
from ...grading.profile import PROFILES
from ...grading.summary import METRICS
from ...store.times import parse_iso
from ...tasks.model import Task
from .columns import SETTINGS
from .trace import Recorded
from .values import iso, shown_outputs
from .wording import clock, duration, score, table, when

NOTE = (
    "*Each code cell is one run as the kernel recorded it, with its outputs (a plot's figure structure, "
    "published for the grader, is left out); cell numbers count the runs in this transcript. Steps and "
    "runs are numbered from 1 here (from 0 in the tables).*"
)


Cell = dict[str, Any]


def new_markdown_cell(source: str, metadata: dict[str, Any] | None = None) -> Cell:
    """A markdown cell as plain JSON, validated with its notebook once (nbformat.v4's constructors
    validate each cell on its own, which costs more than the rest of the export)."""
    return {"cell_type": "markdown", "metadata": metadata or {}, "source": source}


def new_code_cell(
    source: str, outputs: list[dict[str, Any]], execution_count: int, metadata: dict[str, Any]
) -> Cell:
    cell = {"cell_type": "code", "metadata": metadata, "source": source, "outputs": outputs}
    return {**cell, "execution_count": execution_count}


def title_cell(attempt: dict[str, Any], task: Task | None) -> Cell:
    title = task.title if task is not None else attempt["task_id"]
    study = attempt["study"] or "-"
    if attempt["protocol"]:
        study += f" · protocol {attempt['protocol']}"
    settings = " · ".join(f"{k} {attempt[k]}" for k in SETTINGS)
    body = [
        ["task", f"`{attempt['task_id']}` · content hash `{attempt['task_hash'][:12]}`"],
        ["mode", attempt["mode"]],
        ["player", attempt["player"]],
        ["participant", attempt["participant"] or "-"],
        ["study", study],
        ["run", attempt["run"] or "-"],
        ["status", attempt["status"]],
        ["started", when(attempt["created_at"])],
        ["finished", when(attempt["finished_at"])],
        ["working time", f"{duration(attempt['working_seconds'])} (net of pauses)"],
        ["steps settled", f"{attempt['steps_settled']} of {attempt['n_steps']}"],
        ["settings", settings],
    ]
    for p in PROFILES:
        values = [(m, attempt[f"{p}_{m}"]) for m in METRICS]
        if any(v is not None for _, v in values):
            body.append([f"summary ({p})", " · ".join(f"{m} {'-' if v is None else v}" for m, v in values)])
    text = f"# Transcript: {title}\n\n{table(['', ''], body)}\n\n{NOTE}"
    if task is None:
        text += "\n\n**The task is not in the library: its instructions are not shown.**"
    elif task.content_hash != attempt["task_hash"]:
        text += (
            f"\n\n**The task changed since this attempt (now `{task.content_hash[:12]}`): the instructions "
            "shown are today's.**"
        )
    return new_markdown_cell(text, metadata={"cibench_lab": {"role": "title"}})


def step_cells(
    step: dict[str, Any], attempt: dict[str, Any], rec: Recorded, task: Task | None, counter: Iterator[int]
) -> list[Cell]:
    i = step["step"]
    instruction = (
        task.steps[i].instruction if task is not None and i < len(task.steps) else "*(not available)*"
    )
    meta = {"cibench_lab": {"role": "instruction", "step": i}}
    cells = [new_markdown_cell(f"## Step {i + 1} ({step['kind']})\n\n{instruction}", metadata=meta)]
    counts: dict[int, int] = {}
    for kind, _, item in _runs(rec, i):
        n = next(counter)
        if kind == "turn":
            counts[item["number"]] = n
            cells.append(_turn_cell(item, step, n))
        else:
            cells += _exploration_cells(item, i, n)
    cells.append(_grade_cell(step, attempt, rec.turns.get(i, []), counts, rec.pauses.get(i, [])))
    if i in rec.oracle:
        cells.append(_oracle_cell(rec.oracle[i], i, next(counter)))
    return cells


def _runs(rec: Recorded, i: int) -> list[tuple[str, dt.datetime, dict[str, Any]]]:
    """The step's graded turns and exploration runs, in the order they started."""
    runs = [("turn", t["started_at"], t) for t in rec.turns.get(i, [])]
    runs += [("exploration", _started(e), e) for e in rec.explorations.get(i, [])]
    return sorted(runs, key=lambda r: (r[1], r[0] == "turn"))


def _started(run: dict[str, Any]) -> dt.datetime:
    try:
        return parse_iso(str(run["started_at"]))
    except (KeyError, ValueError):
        return run["at"]


def _turn_cell(turn: dict[str, Any], step: dict[str, Any], n: int) -> Cell:
    kept = [p for p in PROFILES if step[f"{p}_kept_turn"] == turn["number"]]
    meta = {
        "cibench_lab": {
            "role": "turn",
            "step": step["step"],
            "turn": turn["number"],
            "started_at": iso(turn["started_at"]),
            "finished_at": iso(turn["finished_at"]),
            "status": (turn["meta"] or {}).get("status", "error" if turn["error"] else "ok"),
            "kept": kept,
        },
        "tags": [f"kept-{p}" for p in kept],
    }
    return new_code_cell(turn["code"], shown_outputs(turn["outputs"]), n, meta)


def _exploration_cells(run: dict[str, Any], i: int, n: int) -> list[Cell]:
    error = ", error" if run.get("error") else ""
    line = f"*Exploration run (not graded) at {clock(_started(run))}{error}; its outputs are not recorded.*"
    meta = {
        "cibench_lab": {"role": "exploration", "step": i, "cell_id": run.get("cell_id")},
        "jupyter": {"source_hidden": True},
        "tags": ["exploration-run"],
    }
    code = new_code_cell(str(run.get("code", "")), [], n, meta)
    return [new_markdown_cell(line, metadata={"cibench_lab": {"role": "exploration", "step": i}}), code]


def _oracle_cell(ref: dict[str, Any], i: int, n: int) -> Cell:
    meta = {
        "cibench_lab": {"role": "oracle", "step": i},
        "jupyter": {"source_hidden": True},
        "tags": ["oracle-reference"],
    }
    code = f"# Reference for step {i + 1} (oracle mode: ran after the step settled)\n{ref.get('code', '')}"
    return new_code_cell(code, shown_outputs(ref.get("outputs")), n, meta)


def _grade_cell(
    step: dict[str, Any],
    attempt: dict[str, Any],
    turns: list[dict[str, Any]],
    counts: dict[int, int],
    pauses: list[tuple[str, dt.datetime, dict[str, Any]]],
) -> Cell:
    i, outcome = step["step"], step["outcome"]
    if outcome:
        head = f"**Step {i + 1}: {OUTCOME_WORDS.get(outcome, outcome)}** (outcome `{outcome}`)"
    else:
        head = f"**Step {i + 1}: not settled**" + (
            " (the participant quit)" if attempt["status"] == "quit" else ""
        )
    times = (
        f"opened {clock(step['opened_at'])} · first run {clock(step['first_run_at'])} · settled "
        f"{clock(step['settled_at'])} · working time {duration(step['working_seconds'])} (net of pauses)"
    )
    parts = [head, times, _grade_table(step, turns, counts)]
    if pauses:
        parts.append(
            "Pauses: " + "; ".join(f"{kind} {clock(at)} ({d.get('cause', '-')})" for kind, at, d in pauses)
        )
    parts.append(f"**Note:** {step['note']}" if step["note"] else "*No note.*")
    return new_markdown_cell("\n\n".join(parts), metadata={"cibench_lab": {"role": "grade", "step": i}})


def _grade_table(step: dict[str, Any], turns: list[dict[str, Any]], counts: dict[int, int]) -> str:
    head = ["run", "cell", "started", "finished", "status", *PROFILES]
    body = []
    for t in turns:
        status = (t["meta"] or {}).get("status", "error" if t["error"] else "ok")
        grades = [
            score((t["grade"] or {}).get(p))
            + (" **(kept)**" if step[f"{p}_kept_turn"] == t["number"] else "")
            for p in PROFILES
        ]
        cell = f"[{counts[t['number']]}]" if t["number"] in counts else "-"
        body.append(
            [str(t["number"] + 1), cell, clock(t["started_at"]), clock(t["finished_at"]), status, *grades]
        )
    kept = []
    for p in PROFILES:
        grade = {"score": step[f"{p}_score"], "passed": step[f"{p}_passed"]} if step["outcome"] else None
        turn = step[f"{p}_kept_turn"]
        kept.append(score(grade) + (f" (run {turn + 1})" if turn is not None else ""))
    body.append(["**kept**", "", "", "", "", *kept])
    return table(head, body)
