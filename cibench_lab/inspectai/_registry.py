"""What Inspect AI loads through our entry point (``[project.entry-points.inspect_ai]``): importing
it registers the task ``cibench_lab/cibench``."""

from __future__ import annotations

from .task import cibench

__all__ = ["cibench"]
