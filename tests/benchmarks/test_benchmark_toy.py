"""The toy benchmark of docs/architecture.md ("How to add a benchmark"), exactly as written there:
registered, it plays its task through headlessly by its own rules (its start code on the kernel, every
player's turn ending its step), and CIBench's tasks as before.  Cost: one kernel, ~10 s."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from cibench_lab.benchmarks import benchmark_of, registered, unregister
from cibench_lab.lab.setup import setup_codes
from cibench_lab.play.attempt import Attempts
from cibench_lab.players import ReferencePlayer
from cibench_lab.runs.local import run_tasks
from cibench_lab.runs.spec import RunSpec
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, StepRow
from cibench_lab.tasks.library import TaskLibrary, builtin_dir

DOC = Path(__file__).parents[2] / "docs" / "architecture.md"
TASK = "cibench_template/pandas/penguins_raw_tidy"


def doc_block() -> str:
    """The Python block of the section "How to add a benchmark"."""
    section = DOC.read_text(encoding="utf-8").split("## How to add a benchmark", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "docs/architecture.md: How to add a benchmark has no python block"
    return found.group(1)


@pytest.fixture
def toy():
    before = registered()
    exec(compile(doc_block(), str(DOC), "exec"), {})  # noqa: S102  (our own docs' example)
    (added,) = [b for b in registered() if b not in before]
    yield added
    unregister(added)


def test_the_docs_toy_benchmark_is_about_ten_lines():
    code = [line for line in doc_block().splitlines() if line.strip() and not line.startswith("from ")]
    assert len(code) <= 12


def test_the_docs_toy_benchmark_plays_its_task_through(toy, tmp_path):
    lib = TaskLibrary.load([builtin_dir()])
    mine = lib.get(TASK)
    assert benchmark_of(mine) is toy and setup_codes(mine) == ["TOY = 1"]
    attempts = Attempts(Store(f"sqlite:///{tmp_path / 'r.sqlite'}"), lib)
    (attempt_id,) = asyncio.run(run_tasks(attempts, [mine], RunSpec(ReferencePlayer(), "e2e", "toy")))
    with attempts.store.session() as s:
        assert s.get(Attempt, attempt_id).status == "done"
        outcomes = s.scalars(select(StepRow.outcome).where(StepRow.attempt_id == attempt_id)).all()
    assert outcomes and set(outcomes) == {"answered"}  # CIBench's rule would say "passed"
    assert len(outcomes) == len(mine.steps)
