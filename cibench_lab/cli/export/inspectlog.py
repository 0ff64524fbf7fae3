"""`cibench-lab export --format inspect (RUN ... | --study S) OUT`: Inspect AI eval logs.

One log per source — a run, or one participant of a study (their pseudonym the log's model) — and
per mode and split, as `inspect eval cibench_lab/cibench -T split=… -T mode=…` would write it; one
sample per attempt (:mod:`.inspectsample`), its scores under ``--profile``; the log's ``micro``
metric per CIBench metric is `report`'s figure for the same attempts.  docs/exports.md, "Inspect AI".
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import sys
from dataclasses import dataclass, field
from importlib import metadata as dist
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ModelUsage
from sqlalchemy import select
from sqlalchemy.orm import Session

from ...grading.summary import METRICS
from ...inspectai.scores import MEAN, MICRO, mean, pooled
from ...store import Store
from ...store.runs import find_runs
from ...store.tables import Attempt, Participant, StepRow, utcnow
from ...tasks.library import TaskLibrary
from . import rows
from .inspectsample import SampleExtra, eval_sample
from .selection import Filters, Selection, resolve
from .trace import recorded

TASK = "cibench_lab/cibench"
HUMAN = "human"
INSPECT = "inspect:"  # inspectai/client.py's PREFIX


@dataclass
class Group:
    """One log's attempts: a source (run or study participant), a model, a mode and a split."""

    model: str
    player: str
    mode: str
    split: str
    source: dict[str, Any]
    samples: list[EvalSample] = field(default_factory=list)

    def key(self) -> str:
        return repr((sorted(self.source.items()), self.model, self.mode, self.split))


def model_name(attempt: dict[str, Any]) -> str:
    """A person as ``human/<pseudonym>``; a player as Inspect names models: ``openai:gpt`` as
    ``openai/gpt``, ``reference`` as ``cibench_lab/reference``, an Inspect task's ``inspect:P/M`` as
    ``P/M``."""
    player = attempt["player"]
    if player == HUMAN:
        return f"{HUMAN}/{attempt['participant']}"
    if player.startswith(INSPECT):
        return player.removeprefix(INSPECT)
    return player.replace(":", "/", 1) if ":" in player else f"cibench_lab/{player}"


def selection(s: Session, args: argparse.Namespace, runs: list[str]) -> Selection:
    """The filters, with the RUNs named (LookupError: one line naming an unknown one)."""
    sel = resolve(s, Filters(args.study, None, args.participant, args.real_names))
    if runs:
        sel.where.append(Attempt.run_id.in_([r.id for r in find_runs(s, runs)]))
    return sel


def collect(store: Store, sel: Selection, lib: TaskLibrary, profile: str) -> tuple[list[Group], int]:
    """The selection's attempts as samples, grouped into logs; and how many attempts."""
    groups: dict[str, Group] = {}
    epochs: dict[tuple[str, str], int] = {}
    n, now = 0, utcnow()
    q = select(Attempt, Participant.name).outerjoin(Participant, Participant.id == Attempt.participant_id)
    q = q.where(*sel.where).order_by(Attempt.created_at, Attempt.id)
    with store.session() as s:
        for att, name in s.execute(q.execution_options(yield_per=rows.BATCH)):
            steps = rows.step_rows(s, att, now)
            attempt = rows.attempt_row(att, name, sel, steps)
            group = _group(groups, attempt)
            epoch = epochs[group.key(), att.task_id] = epochs.get((group.key(), att.task_id), 0) + 1
            task = lib.tasks.get(att.task_id)
            extra = SampleExtra(recorded(s, att.id), task, group.model, profile, att.environment or {}, epoch)
            group.samples.append(eval_sample(attempt, steps, step_grades(s, att.id, profile), extra))
            n += 1
    return list(groups.values()), n


def _group(groups: dict[str, Group], attempt: dict[str, Any]) -> Group:
    if attempt["run"] is not None:
        source: dict[str, Any] = {"run": attempt["run"]}
    else:
        source = {"study": attempt["study"], "participant": attempt["participant"]}
    group = Group(model_name(attempt), attempt["player"], attempt["mode"], attempt["split"], source)
    return groups.setdefault(group.key(), group)


def step_grades(s: Session, attempt_id: str, profile: str) -> list[dict[str, Any]]:
    """The attempt's kept step grades under ``profile`` (settled steps), in step order."""
    q = select(StepRow.grade).where(StepRow.attempt_id == attempt_id).order_by(StepRow.index)
    return [g[profile] for g in s.scalars(q) if g and profile in g]


def _id(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:22]


def _version() -> str:
    try:
        return dist.version("cibench-lab")
    except dist.PackageNotFoundError:
        return "unknown"


def eval_log(group: Group, profile: str) -> EvalLog:
    samples = group.samples
    started = min(s.started_at for s in samples if s.started_at)
    finished = [s.completed_at for s in samples if s.completed_at]
    spec = EvalSpec(
        eval_id=_id("eval" + group.key()),
        run_id=_id(repr(sorted(group.source.items()))),
        created=started,
        task=TASK,
        task_id=_id(group.key()),
        task_registry_name=TASK,
        task_args={"split": group.split, "mode": group.mode},
        task_args_passed={"split": group.split, "mode": group.mode},
        solver=group.player,
        dataset=EvalDataset(name=group.split, samples=len(samples), sample_ids=[str(s.id) for s in samples]),
        model=group.model,
        config=EvalConfig(),
        packages={"cibench-lab": _version(), "inspect_ai": inspect_ai.__version__},
        metadata={"profile": profile, "player": group.player, **group.source, "exported": True},
    )
    results = EvalResults(
        total_samples=len(samples),
        completed_samples=sum(bool(s.scores) for s in samples),
        scores=eval_scores(samples),
    )
    usage: dict[str, ModelUsage] = {}
    for s in samples:
        for model, used in s.model_usage.items():
            usage[model] = usage[model] + used if model in usage else used
    stats = EvalStats(started_at=started, completed_at=max(finished) if finished else "", model_usage=usage)
    plan = EvalPlan(steps=[EvalPlanStep(solver=group.player)])
    return EvalLog(status="success", eval=spec, plan=plan, results=results, stats=stats, samples=samples)


def eval_scores(samples: list[EvalSample]) -> list[EvalScore]:
    """Per CIBench metric: ``micro`` (steps pooled: `report`'s figure) and ``mean`` (over samples)."""
    out = []
    for m in METRICS:
        scores = [s.scores[m] for s in samples if s.scores and m in s.scores]
        total, avg = pooled(scores), mean(scores)
        if total is None or avg is None:
            continue
        metrics = {  # named as the task's scorers name them (inspectai/scorers.py)
            MICRO: EvalMetric(name=f"cibench_lab/{MICRO}", value=total),
            MEAN: EvalMetric(name=MEAN, value=avg),
        }
        out.append(
            EvalScore(
                name=m,
                scorer=m,
                scored_samples=len(scores),
                unscored_samples=len(samples) - len(scores),
                metrics=metrics,
            )
        )
    return out


def log_path(folder: Path, log: EvalLog, fmt: str) -> Path:
    """``<created>_cibench_<task id>.<fmt>``, the name `inspect eval` gives its logs."""
    created = dt.datetime.fromisoformat(log.eval.created).astimezone(dt.timezone.utc)
    return folder / f"{created:%Y-%m-%dT%H-%M-%S}-00-00_cibench_{log.eval.task_id}.{fmt}"


def cmd_inspect(
    args: argparse.Namespace, store: Store, lib: TaskLibrary, runs: list[str], folder: Path
) -> int:
    with store.session() as s:
        try:
            sel = selection(s, args, runs)
        except LookupError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    groups, n = collect(store, sel, lib, args.profile)
    if groups:
        folder.mkdir(parents=True, exist_ok=True)
    for group in groups:
        log = eval_log(group, args.profile)
        write_eval_log(log, str(log_path(folder, log, args.log_format)), format=args.log_format)
    names = "real names" if args.real_names else "pseudonyms"
    logs = f"{len(groups)} Inspect log{'' if len(groups) == 1 else 's'}"
    print(f"exported {n} attempts as {logs} to {folder} (profile {args.profile}; {names})")
    return 0
