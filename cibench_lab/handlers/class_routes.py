"""Thin handlers of what an instructor reads of all the classes they teach at once, for
``Results()``: the participants' attempts (their own work: no headless run's), and one of them —
the class view's record of a member's attempt (``views/classroom.py: member_attempt``, the one
read of it; docs/teach/reference.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import INSTRUCTOR
from ..views.classroom import member_attempt, member_attempts, member_turns
from . import schemas as s
from .base import Handler, Route

CID = "/classes/attempts/{attempt_id}"  # a class member's attempt, whichever class it is in


class ClassHandler(Handler):
    async def members(self) -> frozenset[str]:
        """Who the caller may read: the participants of every class they teach."""
        return await self.services.roles.readable(await self.identity())

    async def read(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(attempts, *args, members)`` on the engine thread."""
        members = await self.members()
        return await self.services.lab.call(work, self.services.attempts, *args, members)


class ClassAttemptsHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self._list())

    async def _list(self) -> list[dict[str, Any]]:
        members = await self.members()
        return await self.services.lab.call(member_attempts, self.services.attempts, members)


class ClassAttemptHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        await self.respond(self.read(member_attempt, attempt_id))


class ClassTurnsHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        await self.respond(self.read(member_turns, attempt_id))


#: The class routes, in the order of docs/api.md (routes.py adds them to ROUTES).
CLASS_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/classes/attempts",
        ClassAttemptsHandler,
        list[s.ClassAttemptRow],
        "The attempts of the participants of the classes the caller teaches (no run's), newest first",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        CID,
        ClassAttemptHandler,
        s.MemberAttempt,
        "A class member's attempt, as the class view shows it (any class the caller teaches)",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        f"{CID}/turns",
        ClassTurnsHandler,
        list[s.MemberTurn],
        "Every recorded turn of a class member's attempt, each naming its step",
        role=INSTRUCTOR,
    ),
)
