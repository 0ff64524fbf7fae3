"""The table a headless run prints when it ends.

CIBench's metrics per task (and over all) for the run's CIBench tasks; for its tasks of Qwen's Code
Interpreter Benchmark, the Qwen table ``cibench-lab report RUN`` prints (:mod:`.qwen_report`: the
executable rate re-run, Math accuracy, Visualization accuracy by the run's judge), over the run's
finished Qwen attempts.
"""

from __future__ import annotations

from sqlalchemy import select

from ..grading.summary import METRICS, format_row, summarize
from ..play.attempt import PROFILE
from ..store import Store
from ..store.tables import Attempt, StepRow
from ..tasks.library import TaskLibrary
from ..tasks.qwen import is_qwen


def print_summary(
    store: Store, lib: TaskLibrary, attempt_ids: list[str], title: str, run_name: str, judge: dict
) -> None:
    """The run's closing table(s) under ``title``; ``judge``: the run's judge options
    (``model``, ``base_url``, ``api_key_env``) for the Qwen table's Visualization accuracy."""
    by_task = _grades(store, attempt_ids)
    qwen = {t for t in by_task if _qwen(lib, t)}
    print(title)
    if len(qwen) < len(by_task) or not by_task:
        print_table({t: g for t, g in by_task.items() if t not in qwen})
    if qwen:
        from .qwen_report import qwen_report, render

        report = qwen_report(store, lib, [run_name], PROFILE, judge)
        print(
            render(report) if report["runs"] else "Qwen's Code Interpreter Benchmark: no finished attempt yet"
        )


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


def _qwen(lib: TaskLibrary, task_id: str) -> bool:
    try:
        return is_qwen(lib.get(task_id))
    except KeyError:
        return False


def print_table(by_task: dict[str, list]) -> None:
    """CIBench's metrics per task and over all (``by_task``: each task's step grades)."""
    print(f"{'task':<48}" + "".join(f"{m:>8}" for m in METRICS))
    for task_id in sorted(by_task):
        print(f"{task_id:<48}" + "".join(f"{v:>8}" for v in format_row(summarize(by_task[task_id]))))
    every = [g for gs in by_task.values() for g in gs]
    print(f"{'all':<48}" + "".join(f"{v:>8}" for v in format_row(summarize(every))))
