"""Qwen's Code Interpreter Benchmark as a benchmark of the lab: its items' limits, loop and kernel.

A person's step ends at the item's call limit less an easy item's prior turn (which ran at setup
and counts as a call).  A player's step follows the original's loop: ``stopped`` at the first
observation holding a stop word (``error:``, ``Traceback``; not an easy item's prior turn, which the
original never checks), ``out_of_turns`` when the item's call limit is reached, ``answered`` at a
reply that calls nothing.  Its kernel runs the original's start code (:mod:`.start`) and bounds a
call by the original's 30 s; it is played end-to-end only, on a kernel of its own (never a warm one:
it works in the attempt's ``upload_file/``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ...errors import BadInput
from ...grading import TurnOutput
from ...grading.qwen.lab import qwen_criterion
from ...grading.qwen.react import extract_code
from ...grading.qwen.rules import QWEN_VERSIONS
from ...models.qwen_react import interpreter_observation, item_prompt, prior_turn_code
from ...players.qwen import QwenSession
from ...players.qwen_tools import QwenToolsSession
from ...tasks.model import Step, Task
from ...tasks.qwen import CALL_TIMEOUT, call_limit, person_runs, qwen_item, qwen_step, stops
from ...tasks.vocabulary import Mode, Outcome
from ..cibench import CIBench
from .start import QWEN_START
from .wire import QwenItem, QwenMeasures
from .words import NO_REFERENCE, notebook_words, qwen_line, refusal


class Qwen(CIBench):
    name = "qwen"
    title = "Qwen's benchmark"
    report_section: str | None = "cibench_lab.cli.qwen_report"
    item_model: type[BaseModel] | None = QwenItem
    measures_model: type[BaseModel] | None = QwenMeasures

    def owns(self, task: Task) -> bool:
        return qwen_item(task) is not None

    def person_limit(self, task: Task) -> int | None:
        item = qwen_item(task)
        return None if item is None else person_runs(item)

    def player_outcome(
        self, task: Task | None, turn: TurnOutput, n_turns: int, max_turn: int, meta: dict[str, Any]
    ) -> Outcome | None:
        calls = call_limit(task) if task is not None else None
        if task is None or calls is None:
            return super().player_outcome(task, turn, n_turns, max_turn, meta)
        if turn.status == "no_action":
            return "answered"
        observation = meta.get("observation")
        if observation is None:
            observation = interpreter_observation(turn.outputs, turn.status, CALL_TIMEOUT)
        if not meta.get("prior_turn") and stops(task, str(observation)):
            return "stopped"
        return "out_of_turns" if n_turns >= calls else None

    def start_codes(self, task: Task, prior_turn: bool) -> list[str]:
        prior = self.prior_code(task) if prior_turn else None
        return [QWEN_START] if prior is None else [QWEN_START, prior]

    def prior_code(self, task: Task) -> str | None:
        """An easy item's prior turn, as the original runs it."""
        item = qwen_item(task)
        if item is None:
            return None
        action = prior_turn_code(item["query"], list(item.get("input_file_path", [])))
        return None if action is None else extract_code(action)

    def turn_timeout(self, task: Task, timeout: float) -> float:
        return min(timeout, CALL_TIMEOUT)

    def check_mode(self, task: Task, mode: Mode) -> None:
        if mode != "e2e":
            raise BadInput(
                f"mode: {task.id} is a Qwen benchmark task, played end-to-end only (no oracle mode)"
            )

    def pooled(self, task: Task) -> bool:
        return False

    def profile_versions(self) -> dict[str, int]:
        return dict(QWEN_VERSIONS)

    def criterion(self, step: Step, profile: str, language: str) -> str:
        return qwen_criterion(step)

    def passes(self, step: Step, profile: str) -> str | None:
        return None

    def session(self, player: Any, task: Task, mode: Mode) -> Any | None:
        """The original's ReAct loop (players/qwen.py), or native tool calls."""
        tools = getattr(getattr(player, "config", None), "protocol", None) == "tools"
        return QwenToolsSession(player, task) if tools else QwenSession(player, task)

    def reference_refusal(self, task: Task) -> str | None:
        return refusal(task)

    def reference_view(self, step: Step) -> dict[str, Any] | None:
        """No reference, but a GSM8K row's answer: its worked solution and ``#### N`` gold, as the
        output (docs/qwen.md)."""
        qwen = qwen_step(step)
        answer = qwen.answer if qwen is not None else None
        return None if not answer else {"code": "", "thought": "", "output": answer, "image": None}

    def notebook_words(self, task: Task) -> tuple[str, str] | None:
        return notebook_words(task)

    def task_view(self, task: Task) -> dict[str, Any]:
        return {"benchmark_item": qwen_item(task)}

    def prompt(self, task: Task, step: Step) -> str:
        """The qwen-react prompt of the item."""
        item = qwen_item(task)
        return step.prompt if item is None else item_prompt(item)

    def show_lines(self, view: dict[str, Any]) -> tuple[str, str | None]:
        """The prompt ends in its open turn (no newline); the item has no reference."""
        return qwen_line(view["benchmark_item"]), NO_REFERENCE
