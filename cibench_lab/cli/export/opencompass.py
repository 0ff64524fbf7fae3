"""`cibench-lab export --format opencompass RUN DIR`: a run in OpenCompass's prediction format.

Anyone can then score it with OpenCompass's own CIBenchEvaluator (the layout is
described in :mod:`cibench_lab.grading.opencompass` and docs/grading.md).  The manifest
counts the attempts' grade rules (``grade_rules``); OpenCompass re-scores every step by its
own rule, which is ``settling``, so attempts that kept their best run are named in a warning.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...grading import TurnOutput
from ...grading import opencompass as oc
from ...play.attempt import turn_output
from ...play.settings import PlaySettings
from ...store import Store
from ...store.tables import Attempt, Turn
from ...tasks.library import TaskLibrary
from ..common import library
from ..report import find_runs


def step_turns(s: Session, attempt_id: str, n_steps: int) -> list[list[TurnOutput]]:
    rows = s.scalars(select(Turn).where(Turn.attempt_id == attempt_id).order_by(Turn.step, Turn.number))
    steps: list[list[TurnOutput]] = [[] for _ in range(n_steps)]
    for t in rows:
        steps[t.step].append(turn_output(t))
    return steps


def export_run(store: Store, lib: TaskLibrary, run_selector: str, root: Path) -> dict:
    """Write one run under ``root``; returns the manifest."""
    datasets: dict[str, list] = {}
    rules: dict[str, int] = {}
    with store.session() as s:
        (run,) = find_runs(s, [run_selector])[:1]
        q = select(Attempt).where(Attempt.run_id == run.id, Attempt.status == "done")
        for att in s.scalars(q):
            task = lib.tasks.get(att.task_id)
            if task is None:
                print(f"warning: task {att.task_id} is not in the library; skipped", file=sys.stderr)
                continue
            rule = PlaySettings.recorded(att.settings or {}).grade_rule
            rules[rule] = rules.get(rule, 0) + 1
            entry = oc.prediction(task, step_turns(s, att.id, len(task.steps)), root / "images")
            datasets.setdefault(oc.dataset_abbr(task.split, task.lib, att.mode), []).append(
                (task, att.id, entry)
            )
        name = run.name
    if rules.get("best"):
        print(
            f"warning: {rules['best']} attempt(s) of run {name} kept their best run (grade rule best); "
            "OpenCompass re-scores them by its own rule (settling)",
            file=sys.stderr,
        )
    return oc.write(root, name, datasets, {"grade_rules": dict(sorted(rules.items()))})


def cmd_opencompass(args: argparse.Namespace, run: str, folder: Path) -> int:
    store = Store(args.db)
    try:
        manifest = export_run(store, library(args), run, folder)
    except LookupError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    n = sum(len(v) for v in manifest["entries"].values())
    rules = ", ".join(f"{rule} ({k})" for rule, k in manifest["grade_rules"].items()) or "none"
    print(
        f"exported {n} attempts of run {manifest['run']} to {folder} ({len(manifest['datasets'])} datasets;"
        f" grade rule: {rules})"
    )
    return 0


__all__ = ["cmd_opencompass", "export_run"]
