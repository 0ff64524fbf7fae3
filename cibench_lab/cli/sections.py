"""A benchmark's runs reported in a table of their own, beside CIBench's metrics.

A benchmark names the module of its section (:attr:`.Benchmark.report_section`, one of this
package's: the section scores and draws, which the benchmarks below the command line cannot); that
module's ``SECTION`` is a :class:`ReportSection`.  ``cibench-lab report`` and the table a headless
run prints ask :func:`sections` instead of naming a benchmark.
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol

from ..benchmarks import benchmark_of, registered
from ..store import Store
from ..tasks.library import TaskLibrary
from ..tasks.model import Task


class ReportSection(Protocol):
    """A benchmark's own report of runs: ``build`` gives a part (``{"runs": [...], "task_ids"}``)."""

    #: the part's key in the JSON report and the suffix of its chart beside CIBench's
    name: str
    #: the task split its imported tasks are in (a run holding one gets the section)
    split: str
    #: how messages name the benchmark (its chart, a CSV of both)
    title: str
    short: str
    #: the headless run's line when none of its attempts finished
    empty: str

    def build(
        self, store: Store, lib: TaskLibrary, runs: list[str] | None, profile: str, judge: dict | None = None
    ) -> dict[str, Any]: ...

    def json_part(self, part: dict[str, Any]) -> dict[str, Any]: ...

    def csv_rows(self, part: dict[str, Any]) -> Any: ...

    def render(self, part: dict[str, Any]) -> str: ...

    def plot(self, part: dict[str, Any], path: str) -> None: ...


def sections() -> list[ReportSection]:
    """Every registered benchmark's section, in registration order (the first asked first)."""
    names = [b.report_section for b in registered() if b.report_section]
    return [importlib.import_module(name).SECTION for name in names]


def section_of(task: Task) -> ReportSection | None:
    """The section reporting ``task``'s attempts (None: CIBench's metrics)."""
    name = benchmark_of(task).report_section
    return None if name is None else importlib.import_module(name).SECTION
