"""Secrets out of upstream error texts, before they reach a response, a log or the terminal.

An endpoint may echo what it was sent — a 401 body quoting the key, a proxy's page
quoting the ``Authorization`` header — and that text becomes a ``ModelError``, a
judge's failed verdict, a 502 the browser receives and a line ``cibench-lab run``
prints.  :func:`redact` replaces every secret this process knows: each key a
:class:`~.client.ChatClient` was given (:func:`remember`), the value of every
secret-looking environment variable and of those the server hid from kernels,
and anything shaped like a bearer token or an ``sk-`` key.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping

MASK = "***"
MIN_SECRET = 8  # shorter values ("EMPTY", "1") are not secrets worth a false positive
HIDE_VAR = "CIBENCH_LAB_HIDE_ENV"  # the variables the server named for kernels to drop
SECRET_NAME = re.compile(
    r"(API_?KEY|(^|_)KEY$|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|DATABASE_URL)", re.IGNORECASE
)
TOKEN_SHAPES = re.compile(r"(?i)(\bbearer\s+)[^\s\"',;}]+|\bsk-[A-Za-z0-9_\-]{8,}")

_known: set[str] = set()


def is_secret_name(name: str) -> bool:
    """Whether an environment variable's name looks like a secret's (the one rule: what
    :func:`redact` masks and what task kernels never inherit, ``kernels/launch.py``)."""
    return SECRET_NAME.search(name) is not None


def hidden_names(environ: Mapping[str, str]) -> set[str]:
    """The variables ``environ``'s ``CIBENCH_LAB_HIDE_ENV`` names (the server's API keys by name)."""
    return {n.strip() for n in environ.get(HIDE_VAR, "").split(",") if n.strip()}


def remember(secret: str | None) -> None:
    """A key this process sends somewhere: never shown again."""
    if secret and len(secret) >= MIN_SECRET:
        _known.add(secret)


def secrets() -> list[str]:
    """Every value to hide, longest first (so a key containing another is masked whole)."""
    hidden = hidden_names(os.environ)
    values = {v for k, v in os.environ.items() if k in hidden or is_secret_name(k)}
    found = {v for v in values if len(v) >= MIN_SECRET} | _known
    return sorted(found, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every known secret and token-shaped string replaced by ``***``."""
    for secret in secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    return TOKEN_SHAPES.sub(lambda m: (m.group(1) or "") + MASK, text)


class RedactingFilter(logging.Filter):
    """A log handler's filter: the formatted message and traceback, redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info:
            formatter = logging.Formatter()
            record.exc_text = redact(formatter.formatException(record.exc_info))
            record.exc_info = None
        return True


def redact_logs(*loggers: logging.Logger) -> None:
    """Install :class:`RedactingFilter` on every handler of ``loggers`` (the root by default)."""
    for logger in loggers or (logging.getLogger(),):
        for handler in logger.handlers:
            if not any(isinstance(f, RedactingFilter) for f in handler.filters):
                handler.addFilter(RedactingFilter())
