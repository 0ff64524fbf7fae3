"""A run's Qwen benchmark attempts as the original's output files, to be scored as it scores them.

Each finished attempt of a Qwen task becomes the row the original writes for its item: the
benchmark row with ``gen`` (the text the ReAct loop built: every turn's ``qwen_text``,
:func:`~cibench_lab.players.qwen.generation`), or a GSM8K row with ``completion`` and the
``acc`` the original records (:func:`~cibench_lab.grading.qwen.answer.math_correct`).  Rows go
to the file of the original's task they belong to — ``gsm8k``, ``visualization`` (the tag),
``general`` (the whole tag) — and a benchmark row tagged ``math`` only (which the original's
``--task`` choices never select) to a ``math`` file of its own; the images the observations
link to are kept by name.  The run's kernels' network setting (each attempt's recorded sandbox)
comes along: the General executable rate is not comparable without it; so does its protocol: a run
whose model played with native tool calling (``qwen-tools``, cibench-lab's mode) is not the
original's, and its numbers are not the original's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...grading.qwen.answer import math_correct
from ...grading.qwen.outputs import OutputFile
from ...models.qwen_react import observation_images
from ...players.qwen import generation
from ...store import Store
from ...store.runs import find_runs
from ...store.tables import Attempt, Turn
from ...tasks.library import TaskLibrary
from ...tasks.qwen import qwen_item

REACT, TOOLS = "qwen-react", "qwen-tools"
#: The order the files are scored in (a later file's rate of a tag replaces an earlier one's).
FILE_ORDER = ("gsm8k", "math", "visualization", "general")


@dataclass
class RunOutputs:
    """One run's Qwen attempts as output files (``outs``), their images and facts for the table."""

    run: str
    player: str
    outs: list[OutputFile] = field(default_factory=list)
    images: dict[str, str] = field(default_factory=dict)  # file name -> PNG base64
    network_off: int = 0  # attempts whose kernel had no network
    upload: Path | None = None  # the tasks' upload_file/ (the data the code reads)
    task_ids: set[str] = field(default_factory=set)
    protocol: str = REACT  # how the run's model was asked: the original's ReAct text, or TOOLS

    @property
    def original_protocol(self) -> bool:
        """Was the run played as the original plays (its numbers comparable to its table)?"""
        return self.protocol == REACT

    @property
    def attempts(self) -> int:
        return sum(len(o.rows) for o in self.outs)


def file_task(item: dict) -> str:
    """The original's task whose file holds ``item``'s row."""
    if "answer" in item and "tags" not in item:
        return "gsm8k"
    tags = str(item.get("tags", ""))
    if "visualization" in tags:
        return "visualization"
    return "general" if "general" in tags.split(",") else "math"


def output_row(item: dict, text: str) -> dict:
    """The row the original writes for ``item`` played to ``text``."""
    if file_task(item) == "gsm8k":
        answer = str(item["answer"])
        acc = math_correct(text, answer)
        return {"question": item["query"], "answer": answer, "completion": text, "acc": acc}
    keys = ("query", "tags", "input_file_path", "lang")
    return {**{k: item[k] for k in keys if k in item}, "gen": text}


def run_outputs(store: Store, lib: TaskLibrary, selectors: list[str] | None) -> list[RunOutputs]:
    """Every chosen run that has finished Qwen attempts, as output files (runs without: left out)."""
    with store.session() as s:
        runs = find_runs(s, selectors)
        found = []
        for run in runs:
            q = select(Attempt).where(Attempt.run_id == run.id, Attempt.status == "done")
            one = RunOutputs(run.name, run.player, protocol=run_protocol(run.config or {}))
            files: dict[str, OutputFile] = {}
            for attempt in s.scalars(q.order_by(Attempt.task_id, Attempt.created_at)):
                _add(s, lib, one, files, attempt)
            one.outs = [files[t] for t in FILE_ORDER if t in files]
            if one.outs:
                found.append(one)
    return found


def run_protocol(config: dict) -> str:
    """The Qwen protocol of a run by its recorded model config (``tools``: native tool calling)."""
    return TOOLS if (config.get("model") or {}).get("protocol") == "tools" else REACT


def _add(
    s: Session, lib: TaskLibrary, one: RunOutputs, files: dict[str, OutputFile], attempt: Attempt
) -> None:
    try:
        task = lib.get(attempt.task_id)
    except KeyError:
        return
    item = qwen_item(task)
    if item is None:
        return
    turns = list(s.scalars(select(Turn).where(Turn.attempt_id == attempt.id).order_by(Turn.number)))
    for turn in turns:
        for path, png in observation_images(list(turn.outputs or [])).items():
            one.images[Path(path).name] = png
    one.task_ids.add(task.id)
    kind = file_task(item)
    out = files.setdefault(kind, OutputFile(Path(f"{kind}_{one.run}_res.jsonl"), kind, one.run))
    out.rows.append(output_row(item, generation([dict(t.meta or {}) for t in turns])))
    sandbox = (attempt.environment or {}).get("sandbox") or {}
    one.network_off += bool(sandbox.get("enabled")) and not sandbox.get("network")
    if one.upload is None and task.datasources is not None and (task.datasources / "upload_file").is_dir():
        one.upload = task.datasources / "upload_file"
