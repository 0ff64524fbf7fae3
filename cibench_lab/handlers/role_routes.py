"""Thin handlers of the role routes: who the caller is, the classes an instructor teaches
(``engine/roles.py``; docs/classroom.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..engine.roles import INSTRUCTOR, PARTICIPANT
from . import schemas as s
from .base import Handler, Route


class MeHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self._me())

    async def _me(self) -> dict:
        return (await self.identity()).as_dict()


class ClassesHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self._classes())

    async def _classes(self) -> list[dict]:
        taught = await self.services.roles.classes(await self.identity())
        return [{"name": name, "members": members} for name, members in taught.items()]


#: The role operations, in the order of docs/api.md (routes.py adds them to ROUTES).
ROLE_ROUTES: tuple[Route, ...] = (
    Route("GET", "/me", MeHandler, s.Me, "The caller: name, roles and classes", role=PARTICIPANT),
    Route(
        "GET",
        "/classes",
        ClassesHandler,
        list[s.ClassInfo],
        "The classes the caller teaches, with their members",
        role=INSTRUCTOR,
    ),
)
