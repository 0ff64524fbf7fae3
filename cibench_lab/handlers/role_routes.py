"""Thin handlers of the role routes: who the caller is, the classes an instructor teaches and
their class view (``auth/roles.py``, ``views/classroom.py``; docs/teach/reference.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import INSTRUCTOR, PARTICIPANT
from ..errors import NotFound
from ..views.classroom import class_progress, member_attempt, progress_csv
from . import schemas as s
from .base import Handler, Route

CLASS = "/classes/{class_name}"


class MeHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self._me())

    async def _me(self) -> dict:
        return (await self.identity()).as_dict()


class ClassesHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self._classes())

    async def _classes(self) -> list[dict]:
        taught = await self.services.roles.classes(await self.identity())
        return [{"name": name, "members": members} for name, members in taught.items()]


class ClassHandler(Handler):
    """What every class route shares: the class must be one the caller teaches (otherwise, for
    them, it does not exist)."""

    async def members(self, class_name: str) -> list[str]:
        """The class's participants (its instructors are not among them)."""
        who = await self.identity()
        if class_name not in who.taught:
            raise NotFound(f"no class {class_name!r} among the classes you teach")
        return await self.services.roles.participants(class_name, who)

    async def progress(self, class_name: str) -> dict:
        members = await self.members(class_name)
        return await self.services.lab.call(class_progress, self.services.attempts, class_name, members)


class ProgressHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, class_name: str) -> None:
        await self.respond(self.progress(class_name))


class ProgressCSVHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, class_name: str) -> None:
        await self.respond(self._csv(class_name))

    async def _csv(self, class_name: str) -> dict:
        text = progress_csv(await self.progress(class_name))
        return {"filename": f"cibench-class-{class_name}.csv", "csv": text}


class MemberAttemptHandler(ClassHandler):
    @web.authenticated
    @authorized
    async def get(self, class_name: str, attempt_id: str) -> None:
        await self.respond(self._attempt(class_name, attempt_id))

    async def _attempt(self, class_name: str, attempt_id: str) -> dict:
        members = await self.members(class_name)
        return await self.services.lab.call(member_attempt, self.services.attempts, attempt_id, members)


#: The role operations, in the order of docs/api.md (routes.py adds them to ROUTES).
ROLE_ROUTES: tuple[Route, ...] = (
    Route("GET", "/me", MeHandler, s.Me, "The caller: name, roles and classes", role=PARTICIPANT),
    Route(
        "GET",
        "/classes",
        ClassesHandler,
        list[s.ClassInfo],
        "The classes the caller teaches, with their participants (not their instructors)",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        f"{CLASS}/progress",
        ProgressHandler,
        s.ClassProgress,
        "The class view: the members' attempts with progress and kept scores, per-step pass rates",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        f"{CLASS}/csv",
        ProgressCSVHandler,
        s.ClassCSV,
        "The class view's table as CSV (one line per attempt)",
        role=INSTRUCTOR,
    ),
    Route(
        "GET",
        f"{CLASS}/attempts/{{attempt_id}}",
        MemberAttemptHandler,
        s.MemberAttempt,
        "A class member's attempt: each step's turns with code, outputs, grades, note and times",
        role=INSTRUCTOR,
    ),
)
