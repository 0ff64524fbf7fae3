"""A small HTTP server answering as JupyterHub's REST API does for the two requests the roles make
(``GET users/{name}``, ``GET groups/{name}``), for fast tests of the real client (``auth/hub.py``).
The hub test (a real JupyterHub) covers the real hub's answers and scopes."""

from __future__ import annotations

import json
from contextlib import contextmanager

from tornado import web
from tornado.httpserver import HTTPServer
from tornado.testing import bind_unused_port

TOKEN = "server-token-0123456789"


class HubAPI(web.RequestHandler):
    """``GET /hub/api/{users|groups}/{name}``: 403 without the token or the scope, 404 for no such name."""

    def initialize(self, state: dict) -> None:
        self.state = state

    def get(self, kind: str, name: str) -> None:
        self.state["asked"].append(f"{kind}/{name}")
        if self.request.headers.get("Authorization") != f"token {TOKEN}":
            raise web.HTTPError(403)
        if kind in self.state["refuse"] or f"{kind}/{name}" in self.state["refuse"]:
            raise web.HTTPError(403)
        found = self.state[kind].get(name)
        if found is None:
            raise web.HTTPError(404)
        field = "groups" if kind == "users" else "users"
        self.finish(json.dumps({"kind": kind[:-1], "name": name, field: found}))


@contextmanager
def hub_api(loop, users: dict[str, list[str]], groups: dict[str, list[str]]):
    """The stand-in on a free port of ``loop``: yields its state (``url``, ``users``, ``groups``,
    ``refuse``: kinds, or ``kind/name`` paths, answered 403, ``asked``: the paths requested)."""
    state: dict = {"users": users, "groups": groups, "refuse": set(), "asked": []}
    sock, port = bind_unused_port()
    app = web.Application([(r"/hub/api/(users|groups)/([^/]+)", HubAPI, {"state": state})])

    async def serve() -> HTTPServer:
        server = HTTPServer(app)
        server.add_socket(sock)
        return server

    server = loop.run_until_complete(serve())
    state["url"] = f"http://127.0.0.1:{port}/hub/api"
    try:
        yield state
    finally:
        server.stop()
        sock.close()
