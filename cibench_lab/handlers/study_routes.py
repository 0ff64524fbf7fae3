"""Thin handlers of the study routes (``/studies...``; docs/api.md, docs/studies.md): each acts for
the server's participant now (a participant code once signed in) through ``studies/service.py``."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import PARTICIPANT, RESEARCHER
from . import schemas as s
from . import study_schemas as ss
from .base import Handler, Route


class StudiesHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self._summaries())

    async def _summaries(self) -> list[dict[str, Any]]:
        return await self.services.studies.summaries(await self.identity())


class StudyHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, study_id: str) -> None:
        await self.respond(self._view(study_id))

    async def _view(self, study_id: str) -> dict[str, Any]:
        return await self.services.studies.view(study_id, await self.identity())


class ConsentHandler(Handler):
    @web.authenticated
    @authorized
    async def post(self, study_id: str) -> None:
        await self.respond(self._consent(study_id))

    async def _consent(self, study_id: str) -> dict[str, Any]:
        body = self.parse(ss.ConsentRequest)
        return await self.services.studies.consent(
            study_id, await self.identity(), body.accept, body.code, body.answers
        )


class StartNextHandler(Handler):
    @web.authenticated
    @authorized
    async def post(self, study_id: str) -> None:
        await self.respond(self._start(study_id))

    async def _start(self, study_id: str) -> dict[str, Any]:
        self.parse(ss.StudyRequest)
        return await self.services.studies.start_next(study_id, await self.identity())


class QuitHandler(Handler):
    @web.authenticated
    @authorized
    async def post(self, study_id: str) -> None:
        await self.respond(self._quit(study_id))

    async def _quit(self, study_id: str) -> dict[str, Any]:
        self.parse(ss.StudyRequest)
        return await self.services.studies.quit(study_id, await self.identity())


class HandOverHandler(Handler):
    @web.authenticated
    @authorized
    async def post(self, study_id: str) -> None:
        await self.respond(self._hand_over(study_id))

    async def _hand_over(self, study_id: str) -> dict[str, Any]:
        self.parse(ss.StudyRequest)
        return await self.services.studies.hand_over(study_id, await self.identity())


class ParticipantsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, study_id: str) -> None:
        await self.respond(self._participants(study_id))

    async def _participants(self, study_id: str) -> list[dict[str, Any]]:
        return await self.services.studies.participants(study_id, await self.identity())


class StudyAttemptHandler(Handler):
    """A participant's attempt of the study, as the class view shows one (researchers only)."""

    @web.authenticated
    @authorized
    async def get(self, study_id: str, attempt_id: str) -> None:
        await self.respond(self._attempt(study_id, attempt_id))

    async def _attempt(self, study_id: str, attempt_id: str) -> dict[str, Any]:
        return await self.services.studies.attempt(study_id, attempt_id, await self.identity())


class CompareHandler(Handler):
    """The study's people beside recorded runs: `report --compare`'s JSON (researchers only)."""

    @web.authenticated
    @authorized
    async def get(self, study_id: str) -> None:
        await self.respond(self._compare(study_id))

    async def _compare(self, study_id: str) -> dict[str, Any]:
        query = self.parse_query(s.CompareQuery)
        profile = query.profile or self.services.attempts.profile
        return await self.services.studies.compare(
            study_id, await self.identity(), query.names(), profile, query.allow_mismatch
        )


class RunsHandler(Handler):
    """The recorded runs a comparison can name (researchers only)."""

    @web.authenticated
    @authorized
    async def get(self, study_id: str) -> None:
        await self.respond(self._runs(study_id))

    async def _runs(self, study_id: str) -> list[dict[str, Any]]:
        return await self.services.studies.runs(study_id, await self.identity())


SID = "/studies/{study_id}"

#: The study operations, in the order of docs/api.md (routes.py adds them to ROUTES).
STUDY_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/studies",
        StudiesHandler,
        list[ss.StudySummary],
        "The server's studies, for the caller",
        role=PARTICIPANT,
    ),
    Route(
        "GET",
        SID,
        StudyHandler,
        ss.StudyView,
        "A study: consent, questionnaire, the caller's plan",
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{SID}/consent",
        ConsentHandler,
        ss.StudyView,
        "Accept the consent and answer the questionnaire (enrols; a participant code signs in)",
        body=ss.ConsentRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{SID}/start",
        StartNextHandler,
        ss.StudyStarted,
        "Start the next task of the caller's plan (the protocol's settings, locked)",
        body=ss.StudyRequest,
        status=201,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{SID}/quit",
        QuitHandler,
        ss.StudyView,
        "Quit the task in progress (left unfinished, recorded as quit)",
        body=ss.StudyRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{SID}/handover",
        HandOverHandler,
        ss.StudyView,
        "Sign the participant code out (the next participant enters theirs)",
        body=ss.StudyRequest,
        role=PARTICIPANT,
    ),
    Route(
        "GET",
        f"{SID}/participants",
        ParticipantsHandler,
        list[ss.ParticipantRecord],
        "Every participant's record of the study (researchers only)",
        role=RESEARCHER,
    ),
    Route(
        "GET",
        f"{SID}/attempts/{{attempt_id}}",
        StudyAttemptHandler,
        s.MemberAttempt,
        "A participant's attempt of the study, as the class view shows one: no reference (researchers only)",
        role=RESEARCHER,
    ),
    Route(
        "GET",
        f"{SID}/runs",
        RunsHandler,
        list[s.RecordedRun],
        "The recorded runs a comparison can name (researchers only)",
        role=RESEARCHER,
    ),
    Route(
        "GET",
        f"{SID}/compare",
        CompareHandler,
        s.Comparison,
        "The study's people beside recorded runs, as `report --compare` (researchers only)",
        query=s.CompareQuery,
        role=RESEARCHER,
    ),
)
