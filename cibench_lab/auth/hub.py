"""JupyterHub's REST API as a single-user server's own token reads it: a user's groups, a group's members.

Under JupyterHub the spawner gives each server ``JUPYTERHUB_API_URL`` and its token
``JUPYTERHUB_API_TOKEN``. ``GET /users/{name}`` answers the user's ``groups`` only when the token holds
``read:users:groups`` for that user (``read:users:groups!user`` in the hub's ``server`` role);
``GET /groups/{name}`` answers its ``users`` only with ``read:groups`` for that group
(docs/teach/reference.md).

Answers are cached for ``ttl`` seconds, failures too: a hub that does not answer, or refuses, is asked
again only after the ttl, and each failure is one logged warning naming the fix. A failure is ``None``:
the caller falls back on the server's settings alone, never on an error of its own.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from tornado.httpclient import AsyncHTTPClient, HTTPClientError

URL_VAR = "JUPYTERHUB_API_URL"
TOKEN_VAR = "JUPYTERHUB_API_TOKEN"
TTL = 60.0  # seconds an answer (or a failure) is kept
TIMEOUT = 5.0  # seconds a request to the hub may take

log = logging.getLogger(__name__)

#: What a refusal (403) of each kind of request needs in the hub's configuration.
SCOPE = {
    "users": "read:users:groups!user (in the hub's `server` role)",
    "groups": "read:groups!group=<the group> (for the instructor, and in the hub's `server` role)",
}


class Hub:
    """The hub's API at ``api_url``, asked with ``token``; answers kept ``ttl`` seconds."""

    def __init__(
        self,
        api_url: str,
        token: str,
        ttl: float = TTL,
        timeout: float = TIMEOUT,
        logger: logging.Logger | None = None,
    ):
        self.api_url = api_url.rstrip("/")
        self.log = logger or log
        self._token = token
        self.ttl = ttl
        self.timeout = timeout
        self._cache: dict[str, tuple[float, Any]] = {}

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str], ttl: float = TTL, logger: logging.Logger | None = None
    ) -> Hub | None:
        """The hub this server runs under, or None outside JupyterHub (no API URL or token)."""
        url, token = environ.get(URL_VAR, ""), environ.get(TOKEN_VAR, "")
        return cls(url, token, ttl, logger=logger) if url and token else None

    async def groups_of(self, user: str) -> list[str] | None:
        """The user's group names, or None when the hub did not tell (logged)."""
        model = await self._get("users", user)
        groups = model.get("groups") if isinstance(model, dict) else None
        if model is not None and not isinstance(groups, list):
            self._warn(f"users/{user}", "its answer has no `groups`", SCOPE["users"])
            return None
        return None if groups is None else [g for g in groups if isinstance(g, str)]

    async def members_of(self, group: str) -> list[str] | None:
        """The group's user names ([] for a group the hub does not have), or None when it did not tell."""
        model = await self._get("groups", group, missing={})
        if model == {}:
            return []
        users = model.get("users") if isinstance(model, dict) else None
        if model is not None and not isinstance(users, list):
            self._warn(f"groups/{group}", "its answer has no `users`", SCOPE["groups"])
            return None
        return None if users is None else [u for u in users if isinstance(u, str)]

    async def _get(self, kind: str, name: str, missing: Any = None) -> Any:
        """The JSON at ``/{kind}/{name}`` (cached), ``missing`` for a 404, None on any other failure."""
        path = f"{kind}/{quote(name, safe='')}"
        now = time.monotonic()
        kept = self._cache.get(path)
        if kept is not None and now - kept[0] < self.ttl:
            return kept[1]
        answer = await self._fetch(kind, path, missing)
        self._cache[path] = (now, answer)
        return answer

    async def _fetch(self, kind: str, path: str, missing: Any) -> Any:
        headers = {"Authorization": f"token {self._token}", "Accept": "application/json"}
        try:
            resp = await AsyncHTTPClient().fetch(
                f"{self.api_url}/{path}",
                headers=headers,
                connect_timeout=self.timeout,
                request_timeout=self.timeout,
            )
            return json.loads(resp.body)
        except HTTPClientError as err:
            if err.code == 404:
                return missing
            if err.code == 599:  # tornado's own: a timeout or a connection closed early
                self._warn(path, f"the hub did not answer ({err})")
            elif err.code == 403:
                self._warn(path, "the hub refused it (403)", SCOPE[kind])
            else:
                self._warn(path, f"the hub answered {err.code}")
        except (OSError, ValueError) as err:  # refused, unreachable, timed out, not JSON
            self._warn(path, f"the hub did not answer ({err})")
        return None

    def _warn(self, path: str, what: str, needs: str = "") -> None:
        fix = f": grant {needs}" if needs else ""
        self.log.warning(
            "cibench-lab: roles from the server's settings only: GET %s/%s: %s%s",
            self.api_url,
            path,
            what,
            fix,
        )
