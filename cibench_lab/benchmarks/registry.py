"""Which benchmark a task is: the first registered benchmark that owns it, else CIBench."""

from __future__ import annotations

from ..players import own
from ..tasks.model import Task
from .base import Benchmark
from .cibench import CIBench

CIBENCH = CIBench()
_registered: list[Benchmark] = []


def register(benchmark: Benchmark) -> None:
    """Ask ``benchmark`` first (before those registered earlier) whether it owns a task."""
    if benchmark not in _registered:
        _registered.insert(0, benchmark)


def unregister(benchmark: Benchmark) -> None:
    if benchmark in _registered:
        _registered.remove(benchmark)


def registered() -> list[Benchmark]:
    """Every benchmark besides CIBench, the one asked first first."""
    return list(_registered)


def pooled(task: Task) -> bool:
    """May ``task`` take a warm kernel of the pool?  Its benchmark says."""
    return benchmark_of(task).pooled(task)


def benchmark_of(task: Task | None) -> Benchmark:
    """``task``'s benchmark (CIBench's for no task)."""
    if task is not None:
        for benchmark in _registered:
            if benchmark.owns(task):
                return benchmark
    return CIBENCH


own.install(benchmark_of)  # the players ask the task's benchmark too (players/own.py)
