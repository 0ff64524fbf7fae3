"""The Inspect task's scorers: one per CIBench metric, reading the scores the solver recorded.

Each scorer (``tool``, ``exec``, ``num``, ``text``, ``vis``) gives the sample its metric x100 under
the task's profile (:func:`.scores.sample_scores`), or NaN — Inspect's unscored — when the task has no
step of its kind; its metrics are ``micro`` (steps pooled over samples: `report`'s figure) and
``mean`` (over samples).
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
from inspect_ai.solver import TaskState

from ..grading.summary import METRICS
from .play import SCORES
from .scores import pooled


@metric
def micro() -> Metric:
    """The steps of every sample pooled: CIBench's micro-average, as `report` computes it."""

    def compute(scores: list[SampleScore]) -> float:
        value = pooled(s.score for s in scores)
        return math.nan if value is None else value

    return compute


def metric_scorer(name: str) -> Scorer:
    """The scorer of metric ``name``."""

    def make() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            found = (state.store.get(SCORES) or {}).get(name)
            return Score.model_validate(found) if found else Score(value=math.nan)

        return score

    return scorer(metrics=[micro(), mean()], name=name)(make)()


def metric_scorers() -> list[Scorer]:
    return [metric_scorer(m) for m in METRICS]
