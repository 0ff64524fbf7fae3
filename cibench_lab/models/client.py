"""An OpenAI-compatible chat client: async, retried, measured.

One :class:`ChatClient` per model (it holds the HTTP connection pool), shared by
every attempt that plays with it.  A request is retried with exponential backoff
(honouring ``Retry-After``) on 429, 5xx, timeouts, dropped connections and
malformed replies; any other error ends the attempt's turn with
:class:`ModelError` (the run leaves that attempt open, to be resumed).  Each
completion carries its token usage and latency for the turn's record.  The key
goes to the endpoint and nowhere else: every error text from the endpoint is
redacted (:mod:`.redact`) before it becomes a message.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

import openai

from .config import ModelConfig
from .redact import redact, remember

log = logging.getLogger(__name__)
RETRY_STATUS = {408, 409, 429}


class ModelError(RuntimeError):
    """The model endpoint failed for good (after retries, or with a non-retryable error)."""


@dataclass
class Completion:
    content: str  # the message text ('' when none)
    reasoning: str = ""  # reasoning_content, when the server sends it
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, int | None] = field(default_factory=dict)
    latency_s: float = 0.0  # the answered request
    wall_s: float = 0.0  # including failed attempts and backoff
    retries: int = 0

    def meta(self) -> dict[str, Any]:
        return {
            "tokens": self.usage,
            "latency_s": round(self.latency_s, 4),
            "wall_s": round(self.wall_s, 4),
            "retries": self.retries,
            "finish_reason": self.finish_reason,
        }


class _Malformed(Exception):
    pass


class ChatClient:
    def __init__(self, config: ModelConfig):
        self.config = config
        key = config.key()
        remember(key)
        self._client = openai.AsyncOpenAI(
            api_key=key,
            base_url=config.resolved_base_url(),
            timeout=config.request_timeout,
            max_retries=0,  # ours, below: the same rules for every failure
        )

    async def complete(
        self, messages: list[dict], tools: list[dict] | None = None, stop: list[str] | None = None
    ) -> Completion:
        """One chat completion for ``messages`` (and ``tools``; ending at a ``stop`` word), retried
        per the config."""
        started = time.monotonic()
        last: Exception | None = None
        for attempt in range(self.config.retries + 1):
            if attempt:
                await asyncio.sleep(self._delay(attempt, last))
            t0 = time.monotonic()
            try:
                raw = await self._create(messages, tools, stop)
                done = _completion(raw)
            except Exception as err:  # classified below; never shows the key
                last = self._classify(err)
                log.warning("cibench-lab: model request failed (%s); attempt %d", _brief(last), attempt + 1)
                continue
            done.latency_s, done.wall_s, done.retries = (
                time.monotonic() - t0,
                time.monotonic() - started,
                attempt,
            )
            return done
        raise ModelError(
            f"{self.config.name}: gave up after {self.config.retries + 1} attempts: {_brief(last)}"
        )

    async def _create(self, messages: list[dict], tools: list[dict] | None, stop: list[str] | None) -> Any:
        kwargs: dict[str, Any] = dict(
            model=self.config.model,
            messages=messages,
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
        )
        if tools:
            kwargs["tools"] = tools
        if stop:
            kwargs["stop"] = stop
        if self.config.extra_body:
            kwargs["extra_body"] = self.config.extra_body
        return await self._client.chat.completions.create(**kwargs)

    def _classify(self, err: Exception) -> Exception:
        """Return the error if it is worth retrying; raise ModelError if not."""
        if isinstance(err, openai.APIStatusError):
            if err.status_code in RETRY_STATUS or err.status_code >= 500:
                return err
            raise ModelError(f"{self.config.name}: HTTP {err.status_code}: {_body(err)}") from None
        if isinstance(err, (openai.APITimeoutError, openai.APIConnectionError, _Malformed)):
            return err
        if isinstance(err, (openai.APIResponseValidationError, json.JSONDecodeError, ValueError)):
            return _Malformed(redact(str(err)))
        raise err

    def _delay(self, attempt: int, err: Exception | None) -> float:
        cfg = self.config
        wait = min(cfg.backoff * 2 ** (attempt - 1), cfg.backoff_max)
        retry_after = _retry_after(err)
        if retry_after is not None:
            wait = min(max(wait, retry_after), cfg.backoff_max)
        return wait * (1 + 0.1 * random.random())

    async def aclose(self) -> None:
        await self._client.close()


def _completion(raw: Any) -> Completion:
    choices = getattr(raw, "choices", None)
    if not choices:
        raise _Malformed("the reply has no choices")
    msg = choices[0].message
    if msg is None:
        raise _Malformed("the reply's choice has no message")
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.function.name, "arguments": c.function.arguments},
        }
        for c in (msg.tool_calls or [])
        if getattr(c, "function", None) is not None
    ]
    usage = getattr(raw, "usage", None)
    return Completion(
        content=msg.content or "",
        reasoning=getattr(msg, "reasoning_content", None)
        or (msg.model_extra or {}).get("reasoning_content")
        or "",
        tool_calls=calls,
        finish_reason=choices[0].finish_reason,
        usage={
            "prompt": getattr(usage, "prompt_tokens", None),
            "completion": getattr(usage, "completion_tokens", None),
            "total": getattr(usage, "total_tokens", None),
        },
    )


def _retry_after(err: Exception | None) -> float | None:
    response = getattr(err, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _body(err: openai.APIStatusError) -> str:
    text = redact(str(getattr(err, "message", "") or err))
    return text if len(text) <= 300 else text[:297] + "..."


def _brief(err: Exception | None) -> str:
    if err is None:
        return "no attempt made"
    if isinstance(err, openai.APIStatusError):
        return f"HTTP {err.status_code}"
    if isinstance(err, openai.APITimeoutError):
        return "request timed out"
    if isinstance(err, openai.APIConnectionError):
        return "connection failed"
    return f"malformed reply ({err})" if isinstance(err, _Malformed) else type(err).__name__
