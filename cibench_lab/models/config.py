"""Model endpoint configuration: where a model lives and how to call it — never logged with its key.

A model is named; its settings come from (lowest first) the defaults, a config
file (``--model-config``; the server's ``CIBenchLabApp.models`` later uses the
same dicts), the environment (``OPENAI_BASE_URL``, the key variable) and the
command line.  The API key is read from a key file (``api_key_file``: never put
into the environment, so no process the server starts inherits it), the
environment variable the config names (``OPENAI_API_KEY`` by default) or a
server-side config value; it is excluded from ``repr``, from
:meth:`ModelConfig.public` and from everything recorded with a run, and masked in
every text the process shows (:mod:`.redact`).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .redact import remember

PROTOCOLS = ("cibench-react", "tools")
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


class ConfigError(ValueError):
    """A model configuration that cannot be used (said without the key)."""


@dataclass(frozen=True)
class ModelConfig:
    name: str  # what runs and the lab call it
    model: str = ""  # the id sent to the endpoint (default: name)
    base_url: str | None = None  # ...up to /v1; None: OPENAI_BASE_URL or api.openai.com
    api_key_env: str = DEFAULT_KEY_ENV
    api_key: str | None = field(default=None, repr=False)  # server config only; prefer api_key_env
    api_key_file: str | None = None  # a file holding the key (its first line), read at each use
    protocol: str = "cibench-react"
    merge_roles: bool = False
    temperature: float = 0.0
    max_tokens: int = 512  # CIBench's agent generates at most 512 new tokens
    request_timeout: float = 120.0
    retries: int = 6  # extra attempts on 429 / 5xx / timeouts / malformed replies
    backoff: float = 1.0  # first retry delay (doubles, capped by backoff_max)
    backoff_max: float = 30.0
    extra_body: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.model:
            object.__setattr__(self, "model", self.name)
        if self.protocol not in PROTOCOLS:
            raise ConfigError(f"protocol: must be one of {', '.join(PROTOCOLS)} (got {self.protocol!r})")
        if self.merge_roles and self.protocol != "cibench-react":
            raise ConfigError("merge_roles: applies to the cibench-react protocol only")
        for name in ("max_tokens", "retries"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise ConfigError(f"{name}: must be a whole number >= 0")

    @classmethod
    def from_dict(cls, name: str, values: dict[str, Any]) -> ModelConfig:
        known = {f.name for f in fields(cls)} - {"name"}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"model {name!r}: unknown setting(s) {', '.join(unknown)}")
        return cls(name=name, **values)

    def with_overrides(self, **values: Any) -> ModelConfig:
        """A copy with the given settings (None values are ignored)."""
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    def resolved_base_url(self) -> str | None:
        return self.base_url or os.environ.get("OPENAI_BASE_URL") or None

    def key(self) -> str:
        """The API key for requests: config value, else the key file's, else the named variable,
        else a placeholder for local servers (vLLM and friends accept any key)."""
        key = self.api_key or self.file_key() or os.environ.get(self.api_key_env)
        if key:
            return key
        if self.resolved_base_url():
            return "EMPTY"
        raise ConfigError(
            f"no API key: set {self.api_key_env} (or, for a local server, a base URL: "
            "--base-url, or base_url in the model config)"
        )

    def file_key(self) -> str | None:
        """The key ``api_key_file`` holds (None: no file set); ConfigError naming the file otherwise."""
        if not self.api_key_file:
            return None
        path = Path(self.api_key_file).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip().split("\n", 1)[0].strip()
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or "not UTF-8 text"
            raise ConfigError(f"api_key_file: {path}: {reason}") from None
        if not key:
            raise ConfigError(f"api_key_file: {path}: empty")
        remember(key)  # masked in every text this process shows from now on
        return key

    def key_file_warning(self) -> str | None:
        """One line when the key file may be read by other users (its mode lets group or others)."""
        if not self.api_key_file:
            return None
        path = Path(self.api_key_file).expanduser()
        try:
            mode = path.stat().st_mode
        except OSError:
            return None  # the first use says why
        if mode & 0o077:
            return f"model {self.name!r}: api_key_file {path} may be read by other users (chmod 600 it)"
        return None

    def public(self) -> dict[str, Any]:
        """What a run records and a browser may see: everything but the key (and where it is kept)."""
        hidden = ("api_key", "api_key_file")
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}
        out["base_url"] = self.resolved_base_url()
        return out


def read_document(path: str | Path) -> Any:
    """A JSON or TOML file (by its suffix) as data; ConfigError naming the file when it cannot be read."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as err:
        raise ConfigError(f"{p}: {err.strerror}") from None
    try:
        if p.suffix == ".toml":
            if sys.version_info >= (3, 11):
                import tomllib
            else:  # the same parser, from PyPI (a dependency on 3.10)
                import tomli as tomllib

            return tomllib.loads(text)
        return json.loads(text)
    except (ValueError, ImportError) as err:
        raise ConfigError(f"{p}: not valid {'TOML' if p.suffix == '.toml' else 'JSON'}: {err}") from None


def read_config_file(path: str | Path) -> dict[str, dict[str, Any]]:
    """``{"models": {NAME: {...settings}}}`` from a JSON or TOML file."""
    data = read_document(path)
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not all(isinstance(v, dict) for v in models.values()):
        raise ConfigError(f'{Path(path)}: expected {{"models": {{NAME: {{settings}}}}}}')
    return models


class ModelRegistry:
    """Named model configs (the CLI's --model-config, the server's configured models)."""

    def __init__(self, models: dict[str, dict[str, Any]] | None = None):
        self.configs = {name: ModelConfig.from_dict(name, v) for name, v in (models or {}).items()}

    def get(self, name: str) -> ModelConfig:
        """The named config, or a default one whose model id is ``name``."""
        return self.configs.get(name) or ModelConfig(name=name)

    def public(self) -> list[dict[str, Any]]:
        """What the lab shows: names and protocols only."""
        return [{"name": c.name, "protocol": c.protocol} for c in self.configs.values()]
