"""Load the grading libraries before the first turn needs them.

rouge-score (and the nltk it imports) load on the first text grade of a process, which then
takes seconds instead of milliseconds.  :func:`warm` loads them; the server runs it on its
grader's own thread when it starts (``Grader.warm``), so startup does not wait and the first
person's badge does not either.  Image libraries load in the grading processes' initializer
(:mod:`.pool`); the lab starts a process when an attempt with a plot step starts
(``Grader.warm_processes``), so its first plot's grade does not wait for it either.
"""

from __future__ import annotations

from . import cjk, text


def warm() -> None:
    """Build the ROUGE scorers of both profiles (imports rouge-score and nltk)."""
    text.rouge1("warm up", "warm up")
    cjk.rouge1_cjk("warm up", "warm up")
