"""Our model players, asking Inspect AI's model instead of an OpenAI-compatible endpoint.

:class:`InspectPlayer` is the ``openai:NAME`` player (:mod:`cibench_lab.players.model`) — the same
sessions, protocols (``cibench-react`` or ``tools``), histories and parsing — whose client sends each
request through ``get_model().generate`` of the sample being played: any provider Inspect supports,
with Inspect's retries, limits, usage and log.  Messages and tools go as OpenAI's chat format
converted by Inspect (``messages_from_openai``); the reply comes back as a :class:`Completion`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from inspect_ai.model import (
    ChatMessageAssistant,
    GenerateConfig,
    ModelOutput,
    get_model,
    messages_from_openai,
)
from inspect_ai.tool import ToolInfo, ToolParams

from ..models.client import ChatClient, Completion
from ..models.config import ModelConfig
from ..players.model import OpenAIPlayer, make_protocol

#: A player's name in the results database: ``inspect:`` and Inspect's model name.
PREFIX = "inspect:"
#: `-T protocol=…`: CIBench's ReAct text protocol, or native tool calls.
PROTOCOLS = {"react": "cibench-react", "tools": "tools"}


class InspectClient(ChatClient):
    """A :class:`ChatClient` whose requests go to the current Inspect model."""

    def __init__(self, config: ModelConfig):  # no HTTP client of its own: Inspect's model holds it
        self.config = config
        self.last: tuple[list[dict], ChatMessageAssistant] | None = None  # the last request, its reply

    async def complete(
        self, messages: list[dict], tools: list[dict] | None = None, stop: list[str] | None = None
    ) -> Completion:
        model = get_model()
        started = time.monotonic()
        output = await model.generate(
            await messages_from_openai(messages),  # type: ignore[arg-type]
            tools=[tool_info(t) for t in tools or []],
            config=GenerateConfig(stop_seqs=stop) if stop else GenerateConfig(),
        )
        self.last = (messages, output.message)
        done = completion(output)
        done.latency_s = done.wall_s = time.monotonic() - started
        return done

    async def aclose(self) -> None:
        return None


def tool_info(tool: dict[str, Any]) -> ToolInfo:
    """An OpenAI tool definition as Inspect's."""
    fn = tool["function"]
    return ToolInfo(
        name=fn["name"], description=fn.get("description", ""), parameters=ToolParams(**fn["parameters"])
    )


def completion(output: ModelOutput) -> Completion:
    """Inspect's reply as the chat client's: text, tool calls in OpenAI's format, usage."""
    message = output.message
    calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.function, "arguments": json.dumps(call.arguments)},
        }
        for call in message.tool_calls or []
    ]
    usage = output.usage
    return Completion(
        content=message.text,
        tool_calls=calls,
        finish_reason=output.stop_reason,
        usage={
            "prompt": usage.input_tokens if usage else None,
            "completion": usage.output_tokens if usage else None,
            "total": usage.total_tokens if usage else None,
        },
    )


class InspectPlayer(OpenAIPlayer):
    """``inspect:MODEL``: the model player over Inspect's model API."""

    def __init__(self, model: str, protocol: str, merge_roles: bool = False):
        self.config = ModelConfig(name=model, model=model, protocol=protocol, merge_roles=merge_roles)
        self.name = f"{PREFIX}{model}"
        self.protocol = make_protocol(self.config)
        self.inspect = InspectClient(self.config)
        self.client = self.inspect

    def describe(self) -> dict[str, Any]:
        return {"player": self.name, "model": {"protocol": self.config.protocol, "inspect": True}}
