"""Thin handlers of what an instructor reads of their classes: the members' attempts and one
of them, as its owner sees it (``engine/classread.py``; docs/classroom.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..engine.classread import class_attempts, member_attempt, member_turns
from ..engine.roles import INSTRUCTOR
from . import schemas as s
from .base import Handler, Route

CID = "/classes/attempts/{attempt_id}"  # a class member's attempt


class ClassHandler(Handler):
    async def members(self) -> frozenset[str]:
        """Who the caller may read: the members of every class they teach (themselves too)."""
        return await self.services.roles.readable(await self.identity())


class ClassAttemptsHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self._list())

    async def _list(self):
        return await self.services.lab.call(class_attempts, self.services.attempts, await self.members())


class ClassAttemptHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str):
        await self.respond(self._view(attempt_id))

    async def _view(self, attempt_id: str):
        members = await self.members()
        return await self.services.lab.call(member_attempt, self.services.attempts, attempt_id, members)


class ClassTurnsHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str):
        await self.respond(self._turns(attempt_id))

    async def _turns(self, attempt_id: str):
        members = await self.members()
        return await self.services.lab.call(member_turns, self.services.attempts, attempt_id, members)


#: The class routes, in the order of docs/api.md (routes.py adds them to ROUTES).
CLASS_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/classes/attempts",
        ClassAttemptsHandler,
        list[s.ClassAttemptRow],
        "The attempts of the members of the classes the caller teaches, newest first",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        CID,
        ClassAttemptHandler,
        s.AttemptView,
        "A class member's attempt, as its participant sees it",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        f"{CID}/turns",
        ClassTurnsHandler,
        list[s.TurnDetail],
        "Every recorded turn of a class member's attempt",
        role=INSTRUCTOR,
    ),
)
