"""Thin handlers under /cibench-lab/api/ (documented in docs/api.md)."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..auth.roles import INSTRUCTOR, PARTICIPANT, RESEARCHER
from ..errors import NotFound
from ..tasks.vocabulary import Outcome
from ..views.attempt import attempt_view, turns_view
from . import schemas as s
from .base import AID, API, Handler, NotFoundHandler, Route, bind
from .class_routes import CLASS_ROUTES
from .newtask import make_task
from .public import grades_shown, public_settle, public_turn
from .record import RECORD_ROUTES
from .role_routes import ROLE_ROUTES
from .run_routes import RUN_ROUTES
from .study_routes import STUDY_ROUTES


class TasksHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        library = self.services.library
        library.rescan()  # a task made or changed since (throttled: TaskLibrary.rescan)
        who, shown = await self.identity(), self.services.class_tasks  # a class's list bounds it
        await self.respond([t.summary() for t in library.select(None) if shown.allows(who, t.id)])

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.respond(self._new())

    async def _new(self) -> dict[str, Any]:
        return await make_task(self.services, self.parse(s.NewTaskRequest))


class TaskHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, task_id: str) -> None:
        await self.respond(self._task(task_id))

    async def _task(self, task_id: str) -> dict:
        task = self.services.library.find(task_id)
        if task is None:
            raise NotFound(f"unknown task {task_id!r}")
        self.services.class_tasks.check(await self.identity(), task.id)
        return task.public()


class AttemptsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self.services.lab.call(self.services.attempts.list_for, self.participant))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.respond(self._start())

    async def _start(self) -> dict[str, Any]:
        body = self.parse(s.StartAttempt)
        settings = None if body.settings is None else body.settings.model_dump(exclude_unset=True)
        player = None if body.player is None else body.player.choice()
        lab = self.services.lab
        self.services.class_tasks.check(await self.identity(), body.task_id)
        await self.services.studies.check_free_play(body.task_id, self.participant)
        attempt_id = await lab.start(body.task_id, body.mode, self.participant, settings, player)
        return await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)


class AttemptHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        await self.respond(
            self.services.lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        )


class KernelHandler(Handler):
    """The browser says which kernel runs the attempt's notebook; restore it if new."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._bind(attempt_id))

    async def _bind(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.KernelReport)
        return await self.services.lab.bind(attempt_id, body.kernel_id, self.participant)


class TurnsHandler(Handler):
    """POST ``{step, kernel_id, msg_id}``: the grade read from the kernel's own IOPub; GET: every turn."""

    @web.authenticated
    @authorized
    async def get(self, attempt_id: str) -> None:
        lab = self.services.lab
        await self.respond(lab.call(turns_view, self.services.attempts, attempt_id, self.participant))

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._turn(attempt_id))

    async def _turn(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.RunReport)  # any "outputs" field is ignored
        lab = self.services.lab
        result = await lab.turn(attempt_id, body.step, body.kernel_id, body.msg_id, self.participant)
        return await lab.call(public_turn, self.services.attempts, attempt_id, result)


class SettleHandler(Handler):
    """Next step / give up: settles the open step."""

    outcome: Outcome = "next"

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._settle(attempt_id))

    async def _settle(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.StepRequest)
        lab = self.services.lab
        settled = await lab.settle(attempt_id, body.step, self.outcome, self.participant)
        view = await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        return {
            "settled": public_settle(settled, grades_shown(view)),
            "next": settled["next"],
            "attempt": view,
        }


class GiveUpHandler(SettleHandler):
    outcome: Outcome = "gave_up"


class SettingsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self.services.settings_view())


class ProposeHandler(Handler):
    """Play step: the attached player's next turn (code for the browser to run in the cell)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._propose(attempt_id))

    async def _propose(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.StepRequest)
        lab = self.services.lab
        out = await lab.propose(attempt_id, body.step, self.participant)
        view = await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        show = grades_shown(view)
        recorded = out["result"]  # a reply that ran nothing, recorded as a turn by the server
        public = {k: out[k] for k in ("step", "turn", "action", "code", "tokens", "latency_s")}
        public["recorded"] = recorded is not None
        public["grade"] = recorded["grade"] if recorded and show else None
        public["settled"] = public_settle(recorded["settled"] if recorded else out["settled"], show)
        return {**public, "next": out["next"], "attempt": view}


class StopHandler(Handler):
    """Stop: cancel the attached player's request in flight."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._stop(attempt_id))

    async def _stop(self, attempt_id: str) -> dict[str, bool]:
        self.parse(s.StopRequest)
        return {"stopped": await self.services.lab.stop(attempt_id, self.participant)}


class OracleHandler(Handler):
    """``{step, kernel_id, msg_id}``: the browser ran a settled step's reference (oracle)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str) -> None:
        await self.respond(self._oracle(attempt_id))

    async def _oracle(self, attempt_id: str) -> dict[str, Any]:
        body = self.parse(s.RunReport)
        lab = self.services.lab
        return await lab.reference(attempt_id, body.step, body.kernel_id, body.msg_id, self.participant)


class RecordingsHandler(Handler):
    """Recorded model runs of a task that "Replay a run" can play."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self._recordings())

    async def _recordings(self) -> list[dict[str, Any]]:
        query = self.parse_query(s.RecordingsQuery)
        lab = self.services.lab
        return await lab.call(lab.recordings, query.task)


class ModelsHandler(Handler):
    """Models the server lets the lab attach: names and protocols, never keys or URLs."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.respond(self.services.models.public())


class OpenAPIHandler(Handler):
    """This API's OpenAPI document (docs/openapi.json is its committed copy)."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        from .openapi import document  # built from ROUTES below

        await self.respond(document())


#: Every operation, in docs/api.md's order: tornado's handlers and docs/openapi.json are built from it.
ROUTES: tuple[Route, ...] = (
    Route("GET", "/openapi.json", OpenAPIHandler, dict[str, Any], "This document", role=PARTICIPANT),
    Route("GET", "/tasks", TasksHandler, list[s.TaskSummary], "The task library", role=PARTICIPANT),
    Route(
        "POST",
        "/tasks",
        TasksHandler,
        s.NewTaskResult,
        "Make a task from a teacher's solution notebook (check: only say what it would be)",
        body=s.NewTaskRequest,
        role=(INSTRUCTOR, RESEARCHER),
    ),
    Route(
        "GET",
        "/tasks/{task_id}",
        TaskHandler,
        s.TaskDetail,
        "One task, without its reference material",
        role=PARTICIPANT,
    ),
    Route(
        "GET", "/settings", SettingsHandler, s.ServerSettings, "The server's play settings", role=PARTICIPANT
    ),
    Route("GET", "/models", ModelsHandler, list[s.ModelInfo], "Models the lab may attach", role=PARTICIPANT),
    Route(
        "GET",
        "/recordings",
        RecordingsHandler,
        list[s.Recording],
        "Recorded model runs of a task, newest first",
        query=s.RecordingsQuery,
        role=PARTICIPANT,
    ),
    Route(
        "GET",
        "/attempts",
        AttemptsHandler,
        list[s.AttemptRow],
        "The caller's attempts, newest first",
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        "/attempts",
        AttemptsHandler,
        s.AttemptView,
        "Start an attempt",
        body=s.StartAttempt,
        status=201,
        role=PARTICIPANT,
    ),
    Route("GET", AID, AttemptHandler, s.AttemptView, "The attempt view", role=PARTICIPANT),
    Route(
        "POST",
        f"{AID}/kernel",
        KernelHandler,
        s.KernelBinding,
        "Bind the kernel that runs the attempt's notebook (restored when new)",
        body=s.KernelReport,
        role=PARTICIPANT,
    ),
    Route("GET", f"{AID}/turns", TurnsHandler, list[s.TurnDetail], "Every recorded turn", role=PARTICIPANT),
    Route(
        "POST",
        f"{AID}/turns",
        TurnsHandler,
        s.TurnResult,
        "Report a run of the open step's cell: graded from the kernel's own output",
        body=s.RunReport,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/next",
        SettleHandler,
        s.SettleResult,
        "Settle the open step",
        body=s.StepRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/give-up",
        GiveUpHandler,
        s.SettleResult,
        "Give up the open step",
        body=s.StepRequest,
        role=PARTICIPANT,
    ),
    *RECORD_ROUTES,
    Route(
        "POST",
        f"{AID}/propose",
        ProposeHandler,
        s.Proposal,
        "The attached player's next turn of the open step",
        body=s.StepRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/stop",
        StopHandler,
        s.Stopped,
        "Cancel the attached player's request",
        body=s.StopRequest,
        role=PARTICIPANT,
    ),
    Route(
        "POST",
        f"{AID}/oracle",
        OracleHandler,
        s.ReferenceResult,
        "Oracle mode: report the run of a settled step's reference cell",
        body=s.RunReport,
        role=PARTICIPANT,
    ),
    *ROLE_ROUTES,
    *CLASS_ROUTES,
    *RUN_ROUTES,
    *STUDY_ROUTES,
)
bind(ROUTES)

#: Path parameters: the regex tornado matches, and what the document says of them.
PARAMS = {
    "attempt_id": (r"[0-9a-f]{32}", "an attempt id (32 hex digits)"),
    "task_id": (r".+", "a task id, <split>/<lib>/<stem>"),
    "study_id": (r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", "a study id"),
    "class_name": (r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}", "a class name"),
}


def pattern(path: str) -> str:
    """A route's tornado pattern: ``{name}`` becomes its capturing regex."""
    out = path
    for name, (regex, _) in PARAMS.items():
        out = out.replace(f"{{{name}}}", f"({regex})")
    return API + out


def handlers() -> list[tuple[str, type]]:
    """Tornado's handler list: one entry per path, then the JSON 404 for any other path under the API."""
    seen: dict[str, type] = {}
    for route in ROUTES:
        seen.setdefault(pattern(route.path), route.handler)
    return [*seen.items(), (rf"{API}(?:/.*)?", NotFoundHandler)]
