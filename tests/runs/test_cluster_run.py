"""Distributed runs: a run on a local Dask cluster survives a worker killed mid-attempt."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from dask_cluster import LocalCluster
from sqlalchemy import func, select

from cibench_lab.cli import main
from cibench_lab.store import Store
from cibench_lab.store.tables import Attempt, Event, StepRow, Turn

TASKS = [
    "cibench_template/pandas/penguins_raw_tidy",
    "cibench_template/matplotlib/gapminder_health_wealth",
    "cibench_template/sklearn/breast_cancer_classifiers",
]
WAIT = 240.0  # seconds: for a worker to be mid-attempt, for the run to end (a loaded machine)


@pytest.fixture
def cluster(tmp_path):
    local = LocalCluster(tmp_path / "cluster").start()
    try:
        yield local
    finally:
        local.stop()


def grades(store: Store, run: str) -> dict[tuple[str, int], dict]:
    with store.session() as s:
        q = (
            select(Attempt.task_id, StepRow.index, StepRow.grade)
            .join(StepRow, StepRow.attempt_id == Attempt.id)
            .where(Attempt.run_id.is_not(None))
        )
        return {(t, i): g for t, i, g in s.execute(q)}


def open_attempt_with_turns(store: Store) -> set[str]:
    """Attempts that are open and already have turns recorded by the driver."""
    with store.session() as s:
        q = (
            select(Turn.attempt_id)
            .join(Attempt, Attempt.id == Turn.attempt_id)
            .where(Attempt.status == "open")
        )
        return set(s.scalars(q))


def worker_mid_attempt(
    cluster: LocalCluster, store: Store, driver: subprocess.Popen, log: Path
) -> tuple[subprocess.Popen, str]:
    """The nanny process (a group leader) whose worker plays an attempt with recorded turns; the
    driver's log as the failure when it ends first."""
    from distributed import Client

    address = json.loads(cluster.scheduler_file.read_text())["address"]
    deadline = time.monotonic() + WAIT
    with Client(address, timeout=30) as client:
        while time.monotonic() < deadline:
            assert driver.poll() is None, f"the run ended first:\n{log.read_text()[-3000:]}"
            started = open_attempt_with_turns(store)
            for worker, keys in client.processing().items():
                for key in keys:
                    attempt_id = str(key).rsplit("-", 1)[-1]
                    if attempt_id in started:
                        pid = client.run(os.getpid, workers=[worker])[worker]
                        nanny = psutil.Process(pid).ppid()
                        return next(p for p in cluster.nannies if p.pid == nanny), attempt_id
            time.sleep(0.2)
    raise AssertionError("no worker was seen mid-attempt")


@pytest.mark.timeout(2 * WAIT + 120)  # each wait says why it ended before the test's timeout
def test_a_run_survives_a_worker_killed_mid_attempt(cluster, tmp_path):
    db = f"sqlite:///{tmp_path / 'cluster.sqlite'}"
    argv = [sys.executable, "-m", "cibench_lab.cli", "--db", db, "run", "--player", "reference",
            "--scheduler-file", str(cluster.scheduler_file), "--tasks", *TASKS, "--run", "c",
            "--no-progress", "--export-transcript", str(tmp_path / "c.jsonl")]  # fmt: skip
    with open(tmp_path / "driver.log", "wb") as log:
        driver = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    store = Store(db)
    try:
        victim, attempt_id = worker_mid_attempt(cluster, store, driver, tmp_path / "driver.log")
        tree = [psutil.Process(victim.pid), *psutil.Process(victim.pid).children(recursive=True)]
        assert any("kernel_launch" in " ".join(p.cmdline()) for p in tree)  # its kernel, among them
        os.killpg(victim.pid, signal.SIGKILL)
        victim.wait(timeout=30)
        assert driver.wait(timeout=WAIT) == 0, (tmp_path / "driver.log").read_text()[-3000:]
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
    # no process of the dead worker is left: its nanny, its worker process, its kernels
    gone, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, [(p.pid, p.cmdline()) for p in alive]

    with store.session() as s:
        assert {(a.task_id, a.status) for a in s.scalars(select(Attempt))} == {(t, "done") for t in TASKS}
        counts = s.execute(
            select(func.count()).select_from(Turn).group_by(Turn.attempt_id, Turn.step, Turn.number)
        )
        assert {n for (n,) in counts} == {1}  # no turn doubled
        for a in s.scalars(select(Attempt)):  # none lost: the reference player's one turn a step
            steps = s.scalars(select(Turn.step).where(Turn.attempt_id == a.id).order_by(Turn.step))
            assert list(steps) == list(range(a.n_steps)), a.task_id
        resumed = s.scalars(
            select(Event.detail).where(Event.attempt_id == attempt_id, Event.kind == "restore")
        )
        assert any(d.get("reason") == "resumed on a worker" for d in resumed)
        n_turns = s.scalar(select(func.count()).select_from(Turn))
    lines = [json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert len(lines) == n_turns and {x["task_id"] for x in lines} == set(TASKS)  # --export-transcript

    local_db = f"sqlite:///{tmp_path / 'local.sqlite'}"
    assert (
        main(
            ["--db", local_db, "run", "--player", "reference", "--tasks", *TASKS, "--run", "c", "--jobs", "2"]
        )
        == 0
    )
    assert grades(store, "c") == grades(Store(local_db), "c")
