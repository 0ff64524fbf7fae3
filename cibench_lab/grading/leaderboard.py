"""Run summaries, CIBench's split weighting, the leaderboard table and bootstrap CIs.

* A *dataset* is one (split, library) folder — OpenCompass scores each one as a
  micro-average over its steps (``summary.summarize``).
* A *split* total is CIBench's summarizer: a weighted mean of the library scores,
  weights = the question counts of that metric in each library
  (opencompass/configs/summarizers/groups/cibench.py).  Those hard-coded counts are
  the libraries' actual question counts, so we take the counts from the run: with
  the full official split they are the same numbers (``official_counts`` checks),
  and with a subset the weighting stays "by question count".  num includes the
  generation split's ``general_correct`` (reported under Num; counts say how many).
* The leaderboard has one row per player: E-Tool … E-Vis from its end-to-end
  runs, O-Tool … O-Vis from its oracle runs, Avg = mean of the six num/text/vis
  values present (CIBench's paper; OpenCompass has no such column).
* 95% CIs: percentile bootstrap over tasks (a task's steps stay together), 2,000
  resamples, seed 0; leaderboard rows resample tasks jointly over both modes.
* Grade rules (``best`` | ``settling``, recorded with each attempt) are never pooled: a
  leaderboard row is one player under one rule, and each run report names its rule.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..tasks.vocabulary import MODES
from .summary import METRICS, step_values, summarize

B = 2000
SCORES = ("num", "text", "vis")
#: CIBench's question counts [total, num, text, vis] (configs/summarizers/groups/cibench.py).
OFFICIAL_COUNTS = {
    "cibench_generation": {
        "matplotlib": (175, 2, 1, 156), "pandas": (200, 45, 45, 38), "pytorch": (69, 0, 8, 11),
        "seaborn": (130, 0, 2, 106), "opencv": (177, 21, 6, 106), "scipy": (161, 94, 14, 49),
    },
    "cibench_template": {
        "lightgbm": (30, 15, 0, 0), "matplotlib": (42, 0, 0, 36), "nltk": (70, 30, 20, 10),
        "opencv": (60, 10, 0, 40), "pandas": (60, 40, 0, 10), "pytorch": (28, 0, 0, 0),
        "scipy": (60, 40, 0, 0), "seaborn": (42, 0, 0, 35), "sklearn": (42, 6, 0, 18),
        "tensorflow": (36, 6, 0, 12),
    },
}  # fmt: skip
OFFICIAL_COUNTS["cibench_template_chinese"] = OFFICIAL_COUNTS["cibench_template"]


@dataclass
class Record:
    """One finished attempt, with its step grades under one profile."""

    run: str
    player: str
    mode: str  # e2e | oracle
    task_id: str
    split: str
    lib: str
    grades: list[dict[str, Any]] = field(default_factory=list)
    grade_rule: str = "settling"  # how each step's grade was kept (play/settings.py)


def task_matrix(records: list[Record]) -> tuple[np.ndarray, np.ndarray]:
    """(sums, counts), each (n_tasks, 5) over METRICS: what a bootstrap resamples."""
    sums = np.zeros((len(records), len(METRICS)))
    counts = np.zeros((len(records), len(METRICS)))
    for i, rec in enumerate(records):
        for g in rec.grades:
            for metric, value in step_values(g).items():
                j = METRICS.index(metric)
                sums[i, j] += value
                counts[i, j] += 1
    return sums, counts


def _ratio(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, 100 * sums / np.where(counts > 0, counts, 1), np.nan)


def bootstrap(sums: np.ndarray, counts: np.ndarray, seed: int = 0, b: int = B) -> np.ndarray:
    """(b, k) resampled ratios x100 (NaN where a resample has no step of that metric)."""
    n = sums.shape[0]
    if n == 0:
        return np.full((b, sums.shape[1]), np.nan)
    idx = np.random.default_rng(seed).integers(0, n, size=(b, n))
    weights = np.zeros((b, n))
    np.add.at(weights, (np.arange(b)[:, None], idx), 1.0)
    return _ratio(weights @ sums, weights @ counts)


def interval(samples: np.ndarray, digits: int = 2) -> list[list[float | None]]:
    """[lo, hi] per column (2.5th/97.5th percentiles, to ``digits``), None where undefined."""
    out: list[list[float | None]] = []
    for col in samples.T:
        col = col[~np.isnan(col)]
        out.append(
            [round(float(np.percentile(col, q)), digits) for q in (2.5, 97.5)] if col.size else [None, None]
        )
    return out


def metrics_with_ci(records: list[Record]) -> dict[str, Any]:
    """Micro-averaged metrics of these attempts, with bootstrap CIs and counts."""
    summary = summarize(g for r in records for g in r.grades)
    sums, counts = task_matrix(records)
    summary["ci"] = dict(zip(METRICS, interval(bootstrap(sums, counts)), strict=True))
    summary["tasks"] = len(records)
    return summary


def weighted(libs: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """CIBench's split total: sum(score*w)/sum(w), w = that metric's question count per library."""
    out: dict[str, float | None] = {}
    for m in METRICS:
        pairs = [(s[m], s["counts"][m]) for s in libs.values() if s["counts"][m]]
        total = sum(w for _, w in pairs)
        out[m] = round(sum(v * w for v, w in pairs) / total, 2) if total else None
    return out


def official_counts(split: str, libs: dict[str, dict[str, Any]]) -> bool | None:
    """Do the run's question counts equal CIBench's for this split? None for a non-official split."""
    table = OFFICIAL_COUNTS.get(split)
    if table is None:
        return None
    got = {lib: (s["counts"]["tool"], s["counts"]["num"], s["counts"]["text"], s["counts"]["vis"])
           for lib, s in libs.items()}  # fmt: skip
    return got == table


def run_report(records: list[Record]) -> dict[str, Any]:
    """One run: overall, per split (CIBench-weighted) and per library, with CIs."""
    by_split: dict[str, list[Record]] = defaultdict(list)
    for rec in records:
        by_split[rec.split].append(rec)
    splits = {}
    for split, recs in sorted(by_split.items()):
        by_lib: dict[str, list[Record]] = defaultdict(list)
        for rec in recs:
            by_lib[rec.lib].append(rec)
        libs = {lib: metrics_with_ci(rs) for lib, rs in sorted(by_lib.items())}
        total = metrics_with_ci(recs)
        total["weighted"] = weighted(libs)
        total["official_counts"] = official_counts(split, libs)
        splits[split] = {"total": total, "libs": libs}
    first = records[0] if records else Record("", "", "", "", "", "")
    return {"run": first.run, "player": first.player, "mode": first.mode, "grade_rule": first.grade_rule,
            "overall": metrics_with_ci(records), "splits": splits}  # fmt: skip


def leaderboard(records: Iterable[Record]) -> list[dict[str, Any]]:
    """One row per player and grade rule: E-/O- metrics, Avg, and their bootstrap CIs."""
    by_player: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for rec in records:
        by_player[rec.player, rec.grade_rule].append(rec)
    return [{**_row(player, recs), "grade_rule": rule} for (player, rule), recs in sorted(by_player.items())]


def _row(player: str, records: list[Record]) -> dict[str, Any]:
    tasks = sorted({r.task_id for r in records})
    blocks = []
    for mode in MODES:
        by_task = {r.task_id: r for r in records if r.mode == mode}
        blocks.append(task_matrix([by_task.get(t, Record("", "", mode, t, "", "")) for t in tasks]))
    sums = np.hstack([blocks[0][0], blocks[1][0]])
    counts = np.hstack([blocks[0][1], blocks[1][1]])
    point = _with_avg(_ratio(sums.sum(0, keepdims=True), counts.sum(0, keepdims=True)))[0]
    samples = _with_avg(bootstrap(sums, counts))
    names = [f"{p}-{m.capitalize()}" for p in ("E", "O") for m in METRICS] + ["Avg"]
    row: dict[str, Any] = {"player": player, "tasks": len(tasks)}
    for name, value in zip(names, point, strict=True):
        row[name] = None if np.isnan(value) else round(float(value), 2)
    row["ci"] = dict(zip(names, interval(samples), strict=True))
    return row


def _with_avg(ratios: np.ndarray) -> np.ndarray:
    """Append Avg = nanmean of E-/O- num, text, vis."""
    cols = [METRICS.index(m) + off for off in (0, len(METRICS)) for m in SCORES]
    part = ratios[:, cols]
    with np.errstate(invalid="ignore"):
        present = (~np.isnan(part)).sum(1)
        avg = np.where(present > 0, np.nansum(part, 1) / np.maximum(present, 1), np.nan)
    return np.hstack([ratios, avg[:, None]])
