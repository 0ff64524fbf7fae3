"""The one player grammar and the one factory, for the command line and the lab.

``human``                a person plays in the notebook (the lab only)
``reference``            the task's own code
``openai:NAME``          a configured OpenAI-compatible model
``replay:attempt:ID``    a recorded model attempt from the results database
``replay:file:PATH``     a JSONL transcript (``replay:PATH`` is the same)

The spec is what the lab records as the attempt's player, so a restarted server
rebuilds the same player from it.  In the lab, transcript paths are relative to
the server root and confined to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..models.config import ConfigError, ModelRegistry
from ..store import Store
from ..tasks.links import LinkRefused, check_no_link
from ..tasks.vocabulary import HUMAN
from .base import Player, ReferencePlayer
from .transcript import ReplayPlayer, TranscriptError, replay_steps, replayable

REFERENCE = "reference"
MODEL = "openai:"
RECORDING = "replay:attempt:"
TRANSCRIPT = "replay:file:"
REPLAY = "replay:"
GRAMMAR = "human, reference, openai:MODEL, replay:attempt:ID, replay:file:PATH"


class SpecError(ValueError):
    """A player spec or choice that names no player this server can build (the message
    starts with the field it is about)."""


@dataclass
class PlayerContext:
    """What building a player may need: the models, the results database, the root that
    confines transcript paths (None: any path, as on the command line), model overrides."""

    registry: ModelRegistry = field(default_factory=ModelRegistry)
    store: Store | None = None
    root: Path | None = None
    attempts: Path | None = None  # the lab's attempts folder: a transcript through a link there is refused
    model_options: dict[str, Any] = field(default_factory=dict)
    config_file: str | None = None


def make_player(spec: str, ctx: PlayerContext) -> Player:
    """The player ``spec`` names (SpecError when it names none; not for ``human``)."""
    if spec == REFERENCE:
        return ReferencePlayer()
    if spec.startswith(MODEL) and spec[len(MODEL) :]:
        return _model(spec[len(MODEL) :], ctx)
    if spec.startswith(RECORDING) and spec[len(RECORDING) :] and ctx.store is not None:
        source = spec[len(RECORDING) :]
        try:
            return ReplayPlayer(steps=replay_steps(ctx.store, source), source=f"attempt {source}")
        except TranscriptError as err:
            raise SpecError(f"player: {err}") from None
    if spec.startswith(REPLAY) and spec[len(REPLAY) :]:
        path = spec[len(TRANSCRIPT) :] if spec.startswith(TRANSCRIPT) else spec[len(REPLAY) :]
        return _transcript(path, ctx)
    raise SpecError(f"player: unknown player {spec!r} (available: {GRAMMAR})")


def _model(name: str, ctx: PlayerContext) -> Player:
    from .model import make_model_player  # needs the openai package

    registry = ctx.registry
    if ctx.config_file is not None:
        registry = None  # type: ignore[assignment]
    try:
        return make_model_player(name, config_file=ctx.config_file, registry=registry, **ctx.model_options)
    except ConfigError as err:
        raise SpecError(f"player.model: {name}: {err}") from None


def _transcript(value: str, ctx: PlayerContext) -> ReplayPlayer:
    path = confined(value, ctx.root, "player.transcript", ctx.attempts)
    try:
        player = ReplayPlayer(path, models_only=ctx.root is not None)  # the lab: model runs only
    except TranscriptError as err:
        shown = str(err).replace(str(path), value) if ctx.root is not None else str(err)
        raise SpecError(f"player.transcript: {shown}") from None
    return player


def confined(value: Any, root: Path | None, name: str, attempts: Path | None = None) -> Path:
    """``value`` as a file path: under ``root`` (when given), existing, through no link in
    ``attempts`` (when given: a kernel's, :mod:`..tasks.links`)."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise SpecError(f"{name}: a path relative to the server root")
    if root is None:
        return Path(value)
    shown = value if len(value) <= 80 else f"{value[:77]}..."
    named = root / value.strip().lstrip("/")
    try:
        path = check_no_link(named, attempts, f"{name}: {shown!r}") if attempts else named.resolve()
        if not path.is_relative_to(root.resolve()):
            raise SpecError(f"{name}: {shown!r} is outside the server root")
        if not path.is_file():
            raise SpecError(f"{name}: no file {shown!r} under the server root")
    except LinkRefused as err:
        raise SpecError(str(err)) from None
    except OSError as err:  # a name too long for the OS, say
        raise SpecError(f"{name}: {shown!r}: {err.strerror or 'not a path this server can open'}") from None
    return path


def spec_of_choice(choice: Any, task_id: str, ctx: PlayerContext) -> str:
    """The lab's player choice, checked: none (a person), ``{"model": NAME}``,
    ``{"replay": ATTEMPT_ID}`` or ``{"transcript": PATH}`` -> the spec to record."""
    if choice in (None, HUMAN):
        return HUMAN
    if not isinstance(choice, dict) or len(choice) != 1:
        raise SpecError('player: must be {"model": NAME}, {"replay": ATTEMPT_ID} or {"transcript": PATH}')
    kind, value = next(iter(choice.items()))
    if kind == "model":
        if value not in ctx.registry.configs:
            known = ", ".join(ctx.registry.configs) or "none configured"
            raise SpecError(f"player.model: unknown model {value!r} (this server has: {known})")
        try:
            ctx.registry.get(value).key()  # fail at Start, not at the first Play
        except ConfigError as err:
            raise SpecError(f"player.model: {value}: {err}") from None
        return MODEL + value
    if kind == "replay":
        ids = {r["id"] for r in replayable(ctx.store, task_id)} if ctx.store is not None else set()
        if value not in ids:
            raise SpecError(f"player.replay: no recorded model run {value!r} of task {task_id}")
        return RECORDING + value
    if kind == "transcript":
        player = _transcript(value, ctx)
        if task_id not in player.turns:
            raise SpecError(f"player.transcript: {value!r} has no turns of task {task_id}")
        assert player.path is not None and ctx.root is not None
        return TRANSCRIPT + player.path.relative_to(ctx.root.resolve()).as_posix()
    raise SpecError(f"player.{kind}: unknown player kind (model, replay or transcript)")
