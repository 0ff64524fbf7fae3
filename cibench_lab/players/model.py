"""``openai:NAME`` players: a conversation per attempt with an OpenAI-compatible endpoint.

:class:`ModelSession` keeps the three histories CIBench's agent keeps — the
session history (what earlier steps left), the inner history (this step's failed
turns) and, in oracle mode, the reference history that replaces the session
history at every step — and asks its protocol (``cibench-react`` or ``tools``)
for the exact messages.  Everything a turn adds to the conversation is derived
from what the database records (the reply in ``Turn.meta``, the outputs, the
settle outcome, the oracle reference's outputs), so
:func:`cibench_lab.play.history.replay_history` rebuilds a session exactly.
The session never judges a turn itself: the driver's settle rule decides, and
``settle(step, "passed")`` says the last observed turn is the accepted one.
"""

from __future__ import annotations

from typing import Any

from ..grading import TurnOutput
from ..models.client import ChatClient, ModelError
from ..models.config import ModelConfig, ModelRegistry, read_config_file
from ..models.react import ReactProtocol
from ..models.tools import ToolsProtocol
from ..tasks.model import Step, Task
from ..tasks.vocabulary import Mode
from .base import PlayerError, Proposal
from .own import own_session


def make_protocol(config: ModelConfig) -> ReactProtocol | ToolsProtocol:
    if config.protocol == "tools":
        return ToolsProtocol()
    return ReactProtocol(merge=config.merge_roles)


class ModelSession:
    def __init__(self, player: OpenAIPlayer, mode: Mode):
        self.player = player
        self.protocol = player.protocol
        self.mode = mode
        self.history: list[dict[str, Any]] = []  # session history (after the system prompt)
        self.references: list[dict[str, Any]] = []  # oracle: u1, A1, S1, u2, ...
        self.exchanges: list[list[dict[str, Any]]] = []  # this step's turns (reply + observation)
        self.step: int | None = None
        self._user: dict[str, Any] = {}

    def _enter(self, step: Step) -> None:
        if self.step == step.index:
            return
        self.step, self.exchanges = step.index, []
        self._user = self.protocol.user(step)
        if self.mode == "oracle":
            self.history = [*self.references, self._user]
        else:
            self.history.append(self._user)

    def messages(self) -> list[dict[str, Any]]:
        """The conversation the next request sends (before the protocol's request shaping)."""
        inner = [m for exchange in self.exchanges for m in exchange]
        return [*self.protocol.system(), *self.history, *inner]

    async def propose(self, step: Step, turn: int) -> Proposal:
        self._enter(step)
        sent, tools = self.protocol.request(self.messages())
        try:
            completion = await self.player.client.complete(sent, tools)
        except ModelError as err:
            raise PlayerError(str(err)) from err
        parsed = self.protocol.parse(completion)
        meta = {
            "protocol": self.protocol.name,
            "model": self.player.config.model,
            "prompt": sent,
            "response": parsed["response"],
            "reply": parsed["reply"],
            "action": parsed["action"],
            **completion.meta(),
        }
        if self.protocol.merge:
            meta["merge_roles"] = True
        for key in ("thought", "text"):
            if parsed.get(key):
                meta[key] = parsed[key]
        return Proposal(parsed["code"], meta, parsed["action"])

    def observe(self, step: Step, proposal: Proposal, result: TurnOutput) -> dict[str, Any]:
        self._enter(step)
        observation = self.protocol.observation(proposal.meta, result)
        self.exchanges.append([proposal.meta["reply"], *observation])
        return {"observation": observation}

    def settle(self, step: Step, outcome: str) -> None:
        self._enter(step)
        if self.mode == "oracle":
            self.references.append(self._user)
        elif outcome == "passed" and self.exchanges:
            self.history.extend(self.exchanges[-1])
        else:
            self.history.extend(self.protocol.gave_up())
        self.exchanges = []

    def observe_reference(self, step: Step, result: TurnOutput) -> None:
        self.references.extend(self.protocol.reference(step, result))


class OpenAIPlayer:
    """``openai:MODEL`` — any OpenAI-compatible chat endpoint."""

    def __init__(self, config: ModelConfig):
        self.config = config
        self.name = f"openai:{config.name}"
        self.protocol = make_protocol(config)
        self.client = ChatClient(config)

    def session(self, task: Task, mode: Mode) -> Any:
        own = own_session(self, task, mode)  # a benchmark that plays its own loop (players/own.py)
        if own is not None:
            return own
        return ModelSession(self, mode)  # the driver settles steps at max_turn

    def describe(self) -> dict[str, Any]:
        return {"player": self.name, "model": self.config.public()}

    async def aclose(self) -> None:
        await self.client.aclose()


def make_model_player(
    name: str,
    *,
    config_file: str | None = None,
    registry: ModelRegistry | None = None,
    **overrides: Any,
) -> OpenAIPlayer:
    """The ``openai:NAME`` player; ``overrides`` (None values ignored) win over the config."""
    if registry is None:
        registry = ModelRegistry(read_config_file(config_file) if config_file else None)
    return OpenAIPlayer(registry.get(name).with_overrides(**overrides))
