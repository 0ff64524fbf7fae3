"""Qwen's Code Interpreter Benchmark: its executable rate and its output files."""
