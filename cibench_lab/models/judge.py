"""The VLM judge of vis steps: a grading ``Judge`` on any OpenAI-compatible vision model.

A traitlets ``Configurable`` built by whoever owns the run — the server from its
``CIBenchLabApp.judge_*`` traits (and ``VisionJudge.*`` config), the CLI from its
``--judge-*`` flags or the ``CIBENCH_LAB_JUDGE_*`` variables — and injected into
the ``Grader``.  Requests go through the project's :class:`~.client.ChatClient`
(async, so a verdict waits on the event loop, not on a thread); failures are not
retried here — the next grading of the step asks again.  The key is read from
``api_key_file`` (its first line, at each request, never put into an environment)
or else the variable ``api_key_env`` names, and sent to the endpoint only.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any

from traitlets import Float, Int, Unicode
from traitlets.config import Configurable

from ..grading.judge import Verdict, failure, parse_score
from .config import DEFAULT_KEY_ENV, ModelConfig
from .redact import redact

ENV_PREFIX = "CIBENCH_LAB_JUDGE_"
FROM_ENV = ("model", "base_url", "api_key_env", "api_key_file")


class VisionJudge(Configurable):
    """Rates a figure 1-10 for a prompt (CIBench's judge), on an OpenAI-compatible endpoint."""

    model = Unicode("", help="The judge's vision model id. Empty: no judge.").tag(config=True)
    base_url = Unicode("", help="Base URL of the judge's API, up to /v1 (empty: OpenAI's).").tag(config=True)
    api_key_env = Unicode(DEFAULT_KEY_ENV, help="Variable holding the judge's API key.").tag(config=True)
    api_key_file = Unicode(
        "", help="File whose first line is the judge's API key (wins over api_key_env)."
    ).tag(config=True)
    timeout = Float(60.0, help="Seconds one judge request may take.").tag(config=True)
    max_tokens = Int(32, help="New tokens the judge may answer with.").tag(config=True)

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: str | None
    ) -> VisionJudge | None:
        """The judge ``CIBENCH_LAB_JUDGE_{MODEL,BASE_URL,API_KEY_ENV,API_KEY_FILE}`` describe,
        ``overrides`` (None ignored) winning; None when no model is named."""
        environ = os.environ if environ is None else environ
        values = {k: environ.get(ENV_PREFIX + k.upper(), "") for k in FROM_ENV}
        values.update({k: v for k, v in overrides.items() if v is not None})
        if not values["model"]:
            return None
        if not values["api_key_env"]:
            del values["api_key_env"]  # the default variable
        return cls(**values)

    def model_config(self) -> ModelConfig:
        return ModelConfig(
            name=self.model,
            base_url=self.base_url or None,
            api_key_env=self.api_key_env or DEFAULT_KEY_ENV,
            api_key_file=self.api_key_file or None,
            temperature=0.0,
            max_tokens=self.max_tokens,
            request_timeout=self.timeout,
            retries=0,  # a failure is recorded; the next grading of the step asks again
        )

    async def judge(self, images: Sequence[str], prompt: str) -> Verdict:
        """The judge's score of ``images`` (base64 PNGs) for ``prompt``, with its raw reply."""
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        content += [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}} for b64 in images
        ]
        try:
            done = await self._chat().complete([{"role": "user", "content": content}])
        except Exception as err:  # recorded with the verdict, never as a 0
            return Verdict(None, None, redact(failure(err)))
        reply = redact(done.content)[:200]
        try:
            return Verdict(parse_score(reply), reply)
        except ValueError as err:
            return Verdict(None, reply, failure(err))

    async def reply(self, images: Sequence[str], prompt: str) -> str:
        """The judge's raw reply to ``prompt`` with ``images`` (base64 PNGs); raises on failure.

        For judges whose verdict is read from the words of the reply (a benchmark's own question)."""
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        content += [{"type": "image_url", "image_url": {"url": _data_url(b64)}} for b64 in images]
        done = await self._chat().complete([{"role": "user", "content": content}])
        return redact(done.content or "")

    def _chat(self) -> Any:
        """One client per event loop (its connections belong to the loop that opened them)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            from .client import ChatClient

            self._client, self._loop = ChatClient(self.model_config()), loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None and self._loop is asyncio.get_running_loop():
            await self._client.aclose()
        self._client = self._loop = None


def _data_url(png_b64: str) -> str:
    return f"data:image/png;base64,{png_b64}"
