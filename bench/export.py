"""Benchmark: `cibench-lab export` on a database of 10,000 turns, beside one query reading the turns.

    python bench/export.py [--attempts 250] [--steps 8] [--turns 5] [--keep DIR]

Builds a SQLite results database (migrated by the Store) and fills it with synthetic rows inserted
through the real tables: attempts of people in a study and of a headless run, their steps, turns
(stdout, results, an error now and then; every vis step's turns carry a 40 kB PNG and a figure
structure, as plots do) graded under both profiles, and events (settles, activity, pauses, cell runs).
A benchmark fixture, not a test.  Then it times each export format writing to a temporary folder,
beside the time of reading the same turn rows (every column) with one query, and prints the ratio
and the target (10,000 turns exported in 10 s at most).  A last csv pass under tracemalloc prints
the export's peak Python memory beside the database's size: the tables are streamed, not loaded.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import os
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from sqlalchemy import insert, select

from cibench_lab.cli.export.selection import Filters, resolve
from cibench_lab.cli.export.tabular import write_tables
from cibench_lab.cli.export.transcript import write_notebooks
from cibench_lab.store import Store
from cibench_lab.store.pseudonym import new_salt
from cibench_lab.store.tables import Attempt, Enrolment, Event, Participant, Run, StepRow, Study, Turn
from cibench_lab.tasks.library import TaskLibrary

TARGET_S = 10.0
TASK_ID = "cibench_template/pandas/bench_export"
KINDS = ("exec", "num", "text", "vis", "num", "text", "exec", "vis")
T0 = dt.datetime(2025, 3, 1, 9, 0, 0)
PNG = base64.b64encode(random.Random(0).randbytes(30_000)).decode()  # ~40 kB of base64, as a plot's


def write_task(root: Path, steps: int) -> None:
    cells = []
    for i in range(steps):
        cells += [new_markdown_cell(f"Step {i + 1}: compute something."), new_code_cell(f"x{i} = {i}")]
    nb = new_notebook(cells=cells)
    nb.metadata["step_types"] = ["exec"] * steps
    nb.metadata["cibench_lab"] = {"schema_version": 1, "title": "Export bench", "language": "en"}
    path = root / "cibench_template" / "pandas" / "bench_export.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, str(path))
    (root / "datasources" / "data").mkdir(parents=True)


def grade(kind: str, score: float, kept: int | None = None) -> dict:
    g = {"kind": kind, "tool": 1.0, "exec": 1.0, "score": None if kind == "exec" else score}
    g |= {"metric": "numeric_correct", "detail": "the printed number", "passed": score >= 1.0}
    g |= {"ungradable": None, "judge": None, **({"kept_turn": kept} if kept is not None else {})}
    return {"cibench": g, "fair": dict(g)}


def outputs(kind: str, rng: random.Random, error: bool) -> list[dict]:
    if error:
        return [{"output_type": "error", "ename": "KeyError", "evalue": "'col'", "traceback": ["Traceback…"]}]
    if kind == "vis":
        data = {"image/png": PNG, "text/plain": "<Figure size 640x480 with 1 Axes>"}
        data["application/vnd.cibench-lab.figure+json"] = {"axes": [{"lines": [[1, 2, 3]] * 10}]}
        return [{"output_type": "display_data", "data": data, "metadata": {}}]
    text = " ".join(f"{rng.random():.4f}" for _ in range(12)) + "\n"
    result = {"output_type": "execute_result", "data": {"text/plain": "   a  b\n0  1  2"}, "metadata": {}}
    return [{"output_type": "stream", "name": "stdout", "text": text}, {**result, "execution_count": 3}]


def fill(store: Store, n_attempts: int, n_steps: int, n_turns: int) -> None:
    rng = random.Random(1)
    with store.session() as s:
        s.add(
            Study(
                id="bench", title="Bench", config={"questionnaire": [{"name": "expertise"}]}, salt=new_salt()
            )
        )
        s.add(Run(id=1, name="bench-run", player="openai:m", mode="e2e"))
        s.add_all(Participant(id=i + 1, name=f"person-{i}") for i in range(20))
        s.add(Participant(id=21, name="player:openai:m"))
        s.flush()
        s.add_all(
            Enrolment(study_id="bench", participant_id=i + 1, answers={"expertise": "x"}) for i in range(20)
        )
    for a in range(n_attempts):
        attempt, steps, turns, events = attempt_rows(a, rng, n_steps, n_turns)
        with store.session() as s:
            s.execute(insert(Attempt), [attempt])
            s.execute(insert(StepRow), steps)
            s.execute(insert(Turn), turns)
            s.execute(insert(Event), events)


def attempt_rows(a: int, rng: random.Random, n_steps: int, n_turns: int) -> tuple[dict, list, list, list]:
    """Attempt ``a``'s row (people and a model's run alternate), its steps, turns and events."""
    human = a % 2 == 0
    attempt_id = f"{a:032x}"
    start = T0 + dt.timedelta(hours=a)
    attempt = dict(id=attempt_id, task_id=TASK_ID, task_hash="0" * 64, mode="e2e", n_steps=n_steps)
    attempt |= dict(player="human" if human else "openai:m", participant_id=(a % 20) + 1 if human else 21)
    attempt |= dict(study_id="bench" if human else None, run_id=None if human else 1, status="done")
    attempt |= dict(settings={"grade_rule": "best"}, created_at=start, finished_at=start)
    steps: list[dict] = []
    turns: list[dict] = []
    events: list[dict] = []
    for i in range(n_steps):
        kind, opened = KINDS[i % len(KINDS)], start + dt.timedelta(minutes=10 * i)
        for n in range(n_turns):
            turns.append(turn_row(attempt_id, i, n, kind, opened + dt.timedelta(seconds=60 * n + 5), rng))
            began = turns[-1]["started_at"]
            events.append(dict(attempt_id=attempt_id, kind="activity", at=began, detail={"step": i}))
            run = {"step": i, "code": "df.head()", "graded": False, "started_at": began.isoformat() + "Z"}
            events.append(dict(attempt_id=attempt_id, kind="cell_run", at=began, detail=run))
        settled = opened + dt.timedelta(minutes=9)
        steps.append(dict(attempt_id=attempt_id, index=i, kind=kind, opened_at=opened, settled_at=settled))
        steps[-1] |= dict(outcome="next", grade=grade(kind, 0.5, kept=n_turns - 1), note="a note")
        events.append(dict(attempt_id=attempt_id, kind="settle", at=settled, detail={"step": i}))
    return attempt, steps, turns, events


def turn_row(attempt_id: str, step: int, n: int, kind: str, began: dt.datetime, rng: random.Random) -> dict:
    error = rng.random() < 0.2
    row = dict(attempt_id=attempt_id, step=step, number=n, code=f"df.groupby('a').sum()  # {n}")
    row |= dict(outputs=outputs(kind, rng, error), error=error, started_at=began)
    row |= dict(finished_at=began + dt.timedelta(seconds=2), grade=grade(kind, rng.random()))
    row |= dict(meta={"status": "error" if error else "ok"}, msg_id=f"{attempt_id}-{step}-{n}")
    return row


def one_query(store: Store) -> tuple[float, int]:
    """Every turn row, every column, with one query (the floor an export of turns stands on)."""
    began = time.perf_counter()
    with store.session() as s:
        rows = s.execute(select(*Turn.__table__.columns)).all()
    return time.perf_counter() - began, len(rows)


def timed(fn) -> tuple[float, object]:
    began = time.perf_counter()
    result = fn()
    return time.perf_counter() - began, result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--attempts", type=int, default=250)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--turns", type=int, default=5, help="turns per step")
    p.add_argument("--keep", type=Path, help="write the exports here (default: a temporary folder)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_task(root / "tasks", args.steps)
        lib = TaskLibrary.load([root / "tasks"])
        store = Store(f"sqlite:///{root / 'bench.sqlite'}")
        fill_s, _ = timed(lambda: fill(store, args.attempts, args.steps, args.turns))
        size = os.path.getsize(root / "bench.sqlite") / 1e6
        query_s, n = one_query(store)
        print(f"database: {n} turns, {args.attempts} attempts, {size:.1f} MB (filled in {fill_s:.1f} s)")
        print(f"one query reading every turn row: {query_s:.2f} s\n")
        out = args.keep or root / "out"
        with store.session() as s:
            sel = resolve(s, Filters())
        print(f"{'format':<10} {'export s':>9} {'ratio':>7} {'target':>8}")
        for fmt in ("csv", "jsonl", "notebooks"):
            if fmt == "notebooks":
                seconds, _ = timed(lambda: write_notebooks(store, sel, lib, out / "notebooks"))
            else:
                seconds, _ = timed(lambda fmt=fmt: write_tables(store, sel, out / fmt, fmt))
            verdict = "OK" if seconds <= TARGET_S else "MISS"
            print(f"{fmt:<10} {seconds:9.2f} {seconds / query_s:6.1f}x {verdict:>5} ≤{TARGET_S:.0f}s")
        tracemalloc.start()
        write_tables(store, sel, out / "csv-memory", "csv")
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
        print(f"\npeak Python memory of the csv export: {peak:.1f} MB (database {size:.1f} MB)")
        store.dispose()


if __name__ == "__main__":
    main()
