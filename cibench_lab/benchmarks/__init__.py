"""Benchmarks served besides CIBench's own rules."""
