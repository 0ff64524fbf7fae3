"""Task and step: what a loaded CIBench notebook is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .kinds import listing
from .plot import UNDECLARED
from .rendering import TaskRendering

#: Step kinds a `step_types` entry may name.
METRIC_KINDS = ("exec", "num", "text", "vis")


@dataclass(frozen=True)
class ReferenceOutput:
    """The reference answer of one step, chosen by the official rules.

    ``kind`` is the detected kind: ``vis`` (``value`` = base64 PNG), ``general``
    (``value`` = text) or ``exec`` (``value`` = None).
    """

    kind: str
    value: str | None

    def summary(self) -> str:
        if self.kind == "vis":
            return f"image/png ({len(self.value or '') * 3 // 4} bytes)"
        if self.kind == "general":
            text = (self.value or "").strip()
            return text if len(text) <= 80 else text[:77] + "..."
        return "no output"


@dataclass(frozen=True)
class StepItem:
    """What a benchmark's own grading reads of a step's item (grading/own.py): a benchmark whose
    tasks carry an item subclasses it (the notebook reader, tasks/format.py, sets it)."""


@dataclass(frozen=True)
class Step:
    """One instruction + its reference code and output."""

    index: int  # 0-based
    instruction: str  # the markdown, without the Thought paragraph
    thought: str  # the reference reasoning (' ' when absent, as the official loader)
    code: str  # the reference code
    outputs: tuple[dict[str, Any], ...]  # the reference cell's nbformat outputs
    reference: ReferenceOutput
    kind: str  # the metric: step_types entry if given, else the detected kind
    modules: tuple[str, ...]  # from metadata `modules`, split on '&'
    prompt: str  # the exact user message a CIBench-protocol model receives
    #: a vis step's declared plot elements (tasks/plot.py), graded beside its data
    plot_elements: tuple[str, ...] = UNDECLARED
    #: what its benchmark's own grading reads of the task's item (None: a CIBench step)
    benchmark_item: StepItem | None = None


@dataclass(frozen=True)
class Task:
    """One notebook: a sequence of steps around a dataset."""

    id: str  # <split>/<lib>/<stem>
    split: str
    lib: str
    stem: str
    path: Path
    datasources: Path | None  # folder the kernel runs in (holds data/...)
    title: str
    intro: str
    language: str  # 'en' | 'zh'
    libraries: tuple[str, ...]
    data_files: tuple[str, ...]  # relative to datasources; empty = copy all of it
    steps: tuple[Step, ...]
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)
    rendering: TaskRendering = TaskRendering()  # how its plots are rendered (tasks/rendering.py)

    def summary(self) -> dict[str, Any]:
        """The listing row (safe for the browser)."""
        return {
            "id": self.id,
            "title": self.title,
            "split": self.split,
            "lib": self.lib,
            "language": self.language,
            "libraries": list(self.libraries),
            "steps": len(self.steps),
            "kinds": sorted({s.kind for s in self.steps}),
            **listing(self),  # the benchmark whose rules play it, and its own item (.kinds)
        }

    def public(self) -> dict[str, Any]:
        """The task as the browser may see it before play: no reference code or outputs."""
        return {
            **self.summary(),
            "intro": self.intro,
            "instructions": [{"index": s.index, "kind": s.kind} for s in self.steps],
        }
