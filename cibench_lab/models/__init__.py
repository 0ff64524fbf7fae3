"""Model players: OpenAI-compatible endpoints, CIBench's ReAct protocol and native tool calling.

``make_model_player(name, ...)`` builds the ``openai:NAME`` player from a
config file / registry entry, the environment and explicit overrides.
"""

from __future__ import annotations

from typing import Any

from .client import ChatClient, Completion, ModelError
from .config import PROTOCOLS, ConfigError, ModelConfig, ModelRegistry, read_config_file
from .session import ModelSession, OpenAIPlayer

__all__ = [
    "PROTOCOLS",
    "ChatClient",
    "Completion",
    "ConfigError",
    "ModelConfig",
    "ModelError",
    "ModelRegistry",
    "ModelSession",
    "OpenAIPlayer",
    "make_model_player",
    "read_config_file",
]


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
