"""Thin handlers of what the server lets a researcher read of the headless runs' attempts, for
``Results()``: the list, one attempt's view and its turns (``views/run.py``; docs/api.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import RESEARCHER
from ..views.run import run_attempt_view, run_attempts, run_turns_view
from . import schemas as s
from .base import Handler, Route

RID = "/runs/attempts/{attempt_id}"  # a headless run's attempt


class RunAttemptsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self.services.lab.call(run_attempts, self.services.attempts))


class RunAttemptHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        await self.respond(self.services.lab.call(run_attempt_view, self.services.attempts, attempt_id))


class RunTurnsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        await self.respond(self.services.lab.call(run_turns_view, self.services.attempts, attempt_id))


#: The run routes, in the order of docs/api.md (routes.py adds them to ROUTES).
RUN_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/runs/attempts",
        RunAttemptsHandler,
        list[s.RunAttemptRow],
        "Every headless run's attempts, newest first, each naming its player and run",
        role=RESEARCHER,
    ),
    Route(
        "GET",
        RID,
        RunAttemptHandler,
        s.AttemptView,
        "A headless run's attempt, as its player sees it (read only)",
        role=RESEARCHER,
    ),
    Route(
        "GET",
        f"{RID}/turns",
        RunTurnsHandler,
        list[s.TurnDetail],
        "Every recorded turn of a headless run's attempt",
        role=RESEARCHER,
    ),
)
