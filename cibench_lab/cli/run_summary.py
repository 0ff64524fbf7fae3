"""The table a headless run prints when it ends.

CIBench's metrics per task (and over all) for the run's CIBench tasks; for its tasks of a benchmark
reported in a table of its own, the section ``cibench-lab report RUN`` prints (:mod:`.sections`),
over the run's finished attempts of that benchmark.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select

from ..grading.summary import METRICS, format_row, summarize
from ..play.attempt import PROFILE
from ..store import Store
from ..store.tables import Attempt, StepRow
from ..tasks.library import TaskLibrary
from .sections import ReportSection, section_of


def print_summary(
    store: Store, lib: TaskLibrary, attempt_ids: list[str], title: str, run_name: str, judge: dict
) -> None:
    """The run's closing table(s) under ``title``; ``judge``: the run's judge options
    (``model``, ``base_url``, ``api_key_env``) for a section's judged measures."""
    by_task = _grades(store, attempt_ids)
    own = {t: s for t in by_task if (s := _section(lib, t)) is not None}
    print(title)
    if len(own) < len(by_task) or not by_task:
        print_table({t: g for t, g in by_task.items() if t not in own})
    for section in _distinct(own.values()):
        report = section.build(store, lib, [run_name], PROFILE, judge)
        print(section.render(report) if report["runs"] else section.empty)


def _grades(store: Store, attempt_ids: list[str]) -> dict[str, list]:
    with store.session() as s:
        rows = s.execute(
            select(Attempt.task_id, StepRow.grade)
            .join(StepRow, StepRow.attempt_id == Attempt.id)
            .where(Attempt.id.in_(attempt_ids))
        ).all()
    by_task: dict[str, list] = {}
    for task_id, grade in rows:
        by_task.setdefault(task_id, []).append(grade[PROFILE])
    return by_task


def _section(lib: TaskLibrary, task_id: str) -> ReportSection | None:
    try:
        return section_of(lib.get(task_id))
    except KeyError:
        return None


def _distinct(found: Iterable[ReportSection]) -> list[ReportSection]:
    out: list[ReportSection] = []
    for section in found:
        if all(section is not s for s in out):
            out.append(section)
    return out


def print_table(by_task: dict[str, list]) -> None:
    """CIBench's metrics per task and over all (``by_task``: each task's step grades)."""
    print(f"{'task':<48}" + "".join(f"{m:>8}" for m in METRICS))
    for task_id in sorted(by_task):
        print(f"{task_id:<48}" + "".join(f"{v:>8}" for v in format_row(summarize(by_task[task_id]))))
    every = [g for gs in by_task.values() for g in gs]
    print(f"{'all':<48}" + "".join(f"{v:>8}" for v in format_row(summarize(every))))
