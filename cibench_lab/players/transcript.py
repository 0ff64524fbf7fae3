"""Transcripts: every turn of a run as JSONL, and the ``replay:FILE`` player that re-runs one.

One line per turn::

    {"task_id": "cibench_template/pandas/x", "step": 0, "turn": 0, "code": "...",
     "response": "<raw model reply>", "action": "no_action", ...}

``task_id``, ``step`` (0-based), ``turn`` and ``code`` are required; ``response``
(the model's raw reply) and ``action`` (default ``code``; ``empty``,
``no_action``, ``invalid``, ``finish`` for replies that ran nothing) are
optional; exports add ``run``, ``player``, ``mode``, ``status`` and
``attempt_id`` for reference.  A replay re-executes the code so the outputs are
real; a step whose recorded turns run out settles as ``gave_up``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select

from ..store import Store
from ..store.tables import Attempt, Run, Turn
from ..store.times import iso
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Mode
from .base import ACTIONS, Proposal, StatelessSession

REQUIRED = ("task_id", "step", "turn", "code")
#: the actions a transcript line may record (``give_up`` is the player running out of lines)
RECORDABLE = tuple(a for a in ACTIONS if a != "give_up")


class TranscriptError(ValueError):
    pass


def transcript_lines(store: Store, run_name: str) -> list[dict[str, Any]]:
    """Every turn of the run ``run_name``, by task, attempt, step and turn."""
    with store.session() as s:
        run = s.scalar(select(Run).where(Run.name == run_name))
        if run is None:
            raise TranscriptError(f"no run named {run_name!r}")
        rows = s.execute(
            select(Attempt, Turn)
            .join(Turn, Turn.attempt_id == Attempt.id)
            .where(Attempt.run_id == run.id)
            .order_by(Attempt.task_id, Attempt.created_at, Turn.step, Turn.number)
        ).all()
        return [_line(run, a, t) for a, t in rows]


def _line(run: Run, attempt: Attempt, turn: Turn) -> dict[str, Any]:
    line: dict[str, Any] = {
        "task_id": attempt.task_id,
        "step": turn.step,
        "turn": turn.number,
        "code": turn.code,
    }
    meta = turn.meta or {}
    if meta.get("response") is not None:
        line["response"] = meta["response"]
    if meta.get("action", "code") != "code":
        line["action"] = meta["action"]
    line.update(
        status=meta.get("status", "ok"),
        run=run.name,
        player=attempt.player,
        mode=attempt.mode,
        attempt_id=attempt.id,
    )
    return line


def export_transcript(store: Store, run_name: str, path: str | Path) -> int:
    """Write the run's transcript to ``path``; return the number of turns written."""
    lines = transcript_lines(store, run_name)
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(lines)


def read_transcript(
    path: str | Path, models_only: bool = False
) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """``{task_id: {step: [lines by turn]}}``; TranscriptError names the line that is wrong.
    ``models_only`` (the lab): a line a recorded player other than a model made (``reference``, a
    replay), or one that names no ``player``, is refused — its code may be a reference, shown before
    the step settles."""
    by_task: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise TranscriptError(f"{path}: {err.strerror or err}") from None
    for n, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        line = _checked(path, n, raw, models_only)
        by_task[line["task_id"]][line["step"]].append(line)
    for steps in by_task.values():
        for lines in steps.values():
            lines.sort(key=lambda x: x["turn"])
    return {t: dict(s) for t, s in by_task.items()}


def _parsed(path: str | Path, n: int, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise TranscriptError(f"{path}:{n}: not UTF-8 (byte {err.start + 1} of the line)") from None
    except RecursionError:
        raise TranscriptError(f"{path}:{n}: not JSON (nested too deeply)") from None
    except ValueError as err:
        raise TranscriptError(f"{path}:{n}: not JSON ({err})") from None


def _checked(path: str | Path, n: int, raw: bytes, models_only: bool) -> dict[str, Any]:
    line = _parsed(path, n, raw)
    if not isinstance(line, dict) or any(k not in line for k in REQUIRED):
        raise TranscriptError(f"{path}:{n}: each line needs {', '.join(REQUIRED)}")
    if not isinstance(line["code"], str) or not isinstance(line["task_id"], str):
        raise TranscriptError(f"{path}:{n}: task_id and code must be strings")
    for key in ("step", "turn"):
        if not isinstance(line[key], int) or isinstance(line[key], bool) or line[key] < 0:
            raise TranscriptError(f"{path}:{n}: {key} must be a whole number >= 0")
    if line.get("action", "code") not in RECORDABLE:
        raise TranscriptError(f"{path}:{n}: action must be one of {', '.join(RECORDABLE)}")
    if models_only and "player" not in line:
        raise TranscriptError(f"{path}:{n}: player: no player named; the lab replays model runs only")
    player = line.get("player", REPLAYABLE_PREFIX)
    if models_only and not (isinstance(player, str) and player.startswith(MODEL_PREFIXES)):
        raise TranscriptError(
            f"{path}:{n}: recorded by {str(player)[:40]!r}, not a model: the lab replays model runs only "
            "(a reference run's code would show before the step settles)"
        )
    return line


class ReplayPlayer:
    """``replay:FILE`` — plays a recorded transcript's code, re-executed."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        steps: dict | None = None,
        source: str = "",
        models_only: bool = False,
    ):
        """From a transcript file, or (``steps``) from one recorded attempt's turns
        (``{step: [lines by turn]}``), which it plays for the task it is given; ``models_only``:
        see :func:`read_transcript`."""
        self.path = Path(path) if path is not None else None
        self.turns = read_transcript(self.path, models_only) if self.path else {}
        self.steps = steps
        self.source = self.path.name if self.path else source
        self.name = f"replay:{self.source}"

    def task_ids(self) -> list[str]:
        """The tasks it has turns for: a recorded attempt's one task, or the transcript's."""
        if self.steps is not None:
            return sorted({line["task_id"] for lines in self.steps.values() for line in lines})
        return sorted(self.turns)

    def session(self, task: Task, mode: Mode) -> ReplaySession:
        return ReplaySession(self, self.steps if self.steps is not None else self.turns.get(task.id, {}))

    def describe(self) -> dict[str, Any]:
        where = str(self.path.resolve()) if self.path else self.source
        return {"player": self.name, "transcript": where}


class ReplaySession(StatelessSession):
    def __init__(self, player: ReplayPlayer, steps: dict[int, list[dict[str, Any]]]):
        self.player = player
        self.steps = steps

    async def propose(self, step: Step, turn: int) -> Proposal:
        lines = self.steps.get(step.index, [])
        if turn >= len(lines):
            return Proposal("", {"replay": {"source": self.player.source, "exhausted": True}}, "give_up")
        line = lines[turn]
        meta: dict[str, Any] = {"replay": {"source": self.player.source, "turn": line["turn"]}}
        if line.get("response") is not None:
            meta["response"] = line["response"]
        action = line.get("action", "code")
        meta["action"] = action
        return Proposal(line["code"], meta, action)


# ---- replaying recorded model runs in the lab ----------------------------------------------
#: Players whose recordings the lab replays: model runs only.  A ``reference`` run (or a
#: replayed transcript, which may be a reference run's export) would put a step's reference
#: code in the browser before the step settles.  Only attempts of named runs (``cibench-lab
#: run``) are recordings: they are benchmark data, shared with every participant; an attempt
#: started in the lab (a person's, or a model a person attached) has no run and is its
#: participant's alone.
REPLAYABLE_PREFIX = "openai:"
#: Model players: ``openai:NAME``, and ``inspect:PROVIDER/MODEL`` (Inspect AI's task: inspectai/).
MODEL_PREFIXES = (REPLAYABLE_PREFIX, "inspect:")


def _model_player():
    return or_(*(Attempt.player.startswith(prefix) for prefix in MODEL_PREFIXES))


def replayable(store: Store, task_id: str) -> list[dict[str, Any]]:
    """Recorded model attempts of ``task_id`` from named runs, newest first."""
    with store.session() as s:
        rows = s.execute(
            select(Attempt, Run.name)
            .join(Run, Run.id == Attempt.run_id)
            .where(Attempt.task_id == task_id, _model_player())
            .order_by(Attempt.created_at.desc())
        ).all()
        return [
            {
                "id": a.id,
                "run": run,
                "player": a.player,
                "mode": a.mode,
                "status": a.status,
                "created_at": iso(a.created_at),
            }
            for a, run in rows
        ]


def replay_steps(store: Store, attempt_id: str) -> dict[int, list[dict[str, Any]]]:
    """One recorded attempt's turns as transcript lines, ``{step: [lines by turn]}``."""
    with store.session() as s:
        attempt = s.get(Attempt, attempt_id)
        if attempt is None or attempt.run_id is None or not attempt.player.startswith(MODEL_PREFIXES):
            raise TranscriptError(f"no recorded model attempt {attempt_id!r}")
        run = s.get(Run, attempt.run_id)
        assert run is not None  # attempt.run_id is a foreign key
        turns = s.scalars(select(Turn).where(Turn.attempt_id == attempt_id).order_by(Turn.step, Turn.number))
        steps: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for t in turns:
            steps[t.step].append(_line(run, attempt, t))
        return dict(steps)
