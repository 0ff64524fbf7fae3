"""Grading: one module per step kind, profiles, summaries."""

from .profile import PROFILES, grade, grade_all
from .summary import METRICS, summarize
from .turn import Grade, TurnOutput

__all__ = ["PROFILES", "METRICS", "Grade", "TurnOutput", "grade", "grade_all", "summarize"]
