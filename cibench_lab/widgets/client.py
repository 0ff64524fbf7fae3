"""The server's REST API as the notebook's user: GETs under ``cibench-lab/api/`` with the
user's token, so every answer is what the server's role checks let this user read."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

from .where import Server, Unavailable

TIMEOUT = 30.0
KEY_HEADER = "X-CIBench-Researcher-Key"  # studies/seat.py's KEY_HEADER


class Api:
    def __init__(self, server: Server, timeout: float = TIMEOUT):
        self.server, self.timeout = server, timeout

    def get(self, path: str) -> Any:
        """The JSON answer of ``GET cibench-lab/api/<path>``; a refusal or a failure is
        :class:`Unavailable` with the server's own sentence."""
        request = urllib.request.Request(self.server.api + quote(path, safe="/?=&"), method="GET")
        request.add_header("Authorization", f"token {self.server.token}")
        if self.server.key:  # a study's shared seat: the researcher's roles (docs/studies.md)
            request.add_header(KEY_HEADER, self.server.key)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as err:
            raise Unavailable(_refusal(path, err)) from None
        except (OSError, ValueError) as err:
            reason = getattr(err, "reason", err)
            raise Unavailable(
                f"The server at {self.server.url} did not answer GET {path} ({reason})."
            ) from None


def _refusal(path: str, err: urllib.error.HTTPError) -> str:
    """``The server refused GET classes (403): GET /classes needs the instructor role.``"""
    try:
        said = json.loads(err.read() or b"{}").get("error") or err.reason
    except (ValueError, AttributeError):
        said = err.reason
    if err.code in (401, 403) and not said:
        said = "the token does not act as this server's user"
    return f"The server refused GET {path} ({err.code}): {str(said).rstrip('.')}."
