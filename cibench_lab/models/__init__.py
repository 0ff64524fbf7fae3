"""OpenAI-compatible endpoints: model configuration, the chat client, CIBench's ReAct protocol
and native tool calling.  The players built on them live in :mod:`cibench_lab.players`.

The client needs the ``openai`` package; it is imported on first use, so
``cibench_lab.models.config`` stays cheap to import.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .config import PROTOCOLS, ConfigError, ModelConfig, ModelRegistry, read_config_file

if TYPE_CHECKING:
    from .client import ChatClient, Completion, ModelError

_LAZY = {"ChatClient": ".client", "Completion": ".client", "ModelError": ".client"}

__all__ = [
    "PROTOCOLS",
    "ChatClient",
    "Completion",
    "ConfigError",
    "ModelConfig",
    "ModelError",
    "ModelRegistry",
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
