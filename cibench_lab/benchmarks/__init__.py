"""Benchmarks as a seam: CIBench's own rules, Qwen's Code Interpreter Benchmark, and what comes next.

Generic code asks :func:`benchmark_of` (a task's :class:`Benchmark`) what differs instead of testing
what a task is; a benchmark is a class registered here.
"""

from .base import Benchmark
from .cibench import CIBench
from .qwen.benchmark import Qwen
from .registry import CIBENCH, benchmark_of, pooled, register, registered, unregister

register(Qwen())

__all__ = [
    "CIBENCH",
    "Benchmark",
    "CIBench",
    "Qwen",
    "benchmark_of",
    "pooled",
    "register",
    "registered",
    "unregister",
]
