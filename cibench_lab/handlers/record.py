"""Thin handlers of the participant record: pause / resume, notes, activity, the action trace."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import PARTICIPANT
from ..lab.trace import trace_view
from ..views.attempt import attempt_view
from . import schemas as s
from .base import AID, Handler, Route


class PauseHandler(Handler):
    """The person pauses (``resume = False``) or resumes the working clock."""

    resume = False

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._toggle(attempt_id))

    async def _toggle(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.PauseRequest)
        record = self.services.lab.record
        if self.resume:
            await record.resume(attempt_id, self.participant, body.cause)
        else:
            await record.pause(attempt_id, self.participant, body.cause)
        lab = self.services.lab
        return await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)


class ResumeHandler(PauseHandler):
    resume = True


class NoteHandler(Handler):
    """The person's note on a step (the whole text, saved as they type)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._note(attempt_id))

    async def _note(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.NoteRequest)
        return await self.services.lab.record.note(attempt_id, self.participant, body.step, body.text)


class ActivityHandler(Handler):
    """The person edited or ran cells of the attempt's notebook: keeps the working clock running."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._activity(attempt_id))

    async def _activity(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.ActivityReport)
        cells, runs = body.cells or {}, body.runs or {}
        return await self.services.lab.record.activity(attempt_id, body.step, self.participant, cells, runs)


class TraceHandler(Handler):
    """Every execution on the attempt's kernel and the edits counted per cell."""

    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        lab = self.services.lab
        await self.respond(lab.call(trace_view, self.services.attempts, attempt_id, self.participant))


#: The record's operations, in the order of docs/api.md (routes.py puts them among the attempt's).
RECORD_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        f"{AID}/activity",
        ActivityHandler,
        s.Activity,
        "Report edits and runs of the attempt's notebook (keeps its working clock running)",
        body=s.ActivityReport,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/pause",
        PauseHandler,
        s.AttemptView,
        "Pause the working clock",
        body=s.PauseRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/resume",
        ResumeHandler,
        s.AttemptView,
        "Resume the paused working clock",
        body=s.PauseRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/note",
        NoteHandler,
        s.Note,
        "Save the person's note on a step",
        body=s.NoteRequest,
        role=PARTICIPANT,
    ),
    Route(
        "GET",
        f"{AID}/trace",
        TraceHandler,
        s.Trace,
        "The action trace: every run and per-cell edits",
        role=PARTICIPANT,
    ),
)
