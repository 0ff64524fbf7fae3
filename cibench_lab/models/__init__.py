"""Model players: OpenAI-compatible endpoints, CIBench's ReAct protocol and native tool calling.

``make_model_player(name, ...)`` builds the ``openai:NAME`` player from a
config file / registry entry, the environment and explicit overrides.

The names that need the ``openai`` package (the client, the session and the
player) are imported on first use, so ``cibench_lab.models.config`` and
``cibench_lab.models.transcript`` stay cheap to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .config import PROTOCOLS, ConfigError, ModelConfig, ModelRegistry, read_config_file

if TYPE_CHECKING:
    from .client import ChatClient, Completion, ModelError
    from .session import ModelSession, OpenAIPlayer

_LAZY = {
    "ChatClient": ".client",
    "Completion": ".client",
    "ModelError": ".client",
    "ModelSession": ".session",
    "OpenAIPlayer": ".session",
}

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


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def make_model_player(
    name: str,
    *,
    config_file: str | None = None,
    registry: ModelRegistry | None = None,
    **overrides: Any,
) -> OpenAIPlayer:
    """The ``openai:NAME`` player; ``overrides`` (None values ignored) win over the config."""
    from .session import OpenAIPlayer

    if registry is None:
        registry = ModelRegistry(read_config_file(config_file) if config_file else None)
    return OpenAIPlayer(registry.get(name).with_overrides(**overrides))
