"""Thin handlers under /cibench-lab/api/ (documented in docs/api.md)."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..engine.errors import NotFound
from ..engine.view import attempt_view, grades_visible, turns_view
from . import schemas as s
from .base import API, Handler, NotFoundHandler, Route, bind
from .newtask import make_task
from .record import ActivityHandler, NoteHandler, PauseHandler, ResumeHandler, TraceHandler
from .study_routes import STUDY_ROUTES


class TasksHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond([t.summary() for t in self.services.library.select(None)])

    @web.authenticated
    @authorized
    async def post(self):
        await self.respond(self._new())

    async def _new(self):
        return await make_task(self.services, self.parse(s.NewTaskRequest))


class TaskHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, task_id: str):
        await self.respond(self._task(task_id))

    async def _task(self, task_id: str) -> dict:
        task = self.services.library.tasks.get(task_id)
        if task is None:
            raise NotFound(f"unknown task {task_id!r}")
        return task.public()


class AttemptsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self.services.lab.call(self.services.attempts.list_for, self.participant))

    @web.authenticated
    @authorized
    async def post(self):
        await self.respond(self._start())

    async def _start(self):
        body = self.parse(s.StartAttempt)
        settings = None if body.settings is None else body.settings.model_dump(exclude_unset=True)
        player = None if body.player is None else body.player.choice()
        lab = self.services.lab
        attempt_id = await lab.start(body.task_id, body.mode, self.participant, settings, player)
        return await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)


class AttemptHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self, attempt_id: str):
        await self.respond(
            self.services.lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        )


class KernelHandler(Handler):
    """The browser says which kernel runs the attempt's notebook; restore it if new."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._bind(attempt_id))

    async def _bind(self, attempt_id: str):
        body = self.parse(s.KernelReport)
        return await self.services.lab.bind(attempt_id, body.kernel_id, self.participant)


class TurnsHandler(Handler):
    """``{step, kernel_id, msg_id}`` -> the grade read from the kernel's own IOPub;
    GET: every recorded turn with its player's prompt, reply, tokens and latency."""

    @web.authenticated
    @authorized
    async def get(self, attempt_id: str):
        lab = self.services.lab
        await self.respond(lab.call(turns_view, self.services.attempts, attempt_id, self.participant))

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._turn(attempt_id))

    async def _turn(self, attempt_id: str):
        body = self.parse(s.RunReport)  # any "outputs" field is ignored
        lab = self.services.lab
        result = await lab.turn(attempt_id, body.step, body.kernel_id, body.msg_id, self.participant)
        return await lab.call(public_turn, self.services.attempts, attempt_id, result)


class SettleHandler(Handler):
    """Next step / give up: settles the open step."""

    outcome = "next"

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._settle(attempt_id))

    async def _settle(self, attempt_id: str):
        body = self.parse(s.StepRequest)
        lab = self.services.lab
        settled = await lab.settle(attempt_id, body.step, self.outcome, self.participant)
        view = await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        return {
            "settled": _public_settle(settled, _grades_visible(view)),
            "next": settled["next"],
            "attempt": view,
        }


class GiveUpHandler(SettleHandler):
    outcome = "gave_up"


class SettingsHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self.services.settings_view())


def _grades_visible(view: dict) -> bool:
    return grades_visible(view["status"], view["settings"]["show_grades"])


def _public_settle(settled: dict | None, show_grade: bool) -> dict | None:
    if settled is None:
        return None
    out = {k: settled[k] for k in ("step", "outcome", "next_step", "oracle_code")}
    out["grade"] = settled["grade"] if show_grade else None
    return out


def public_turn(attempts, attempt_id: str, result: dict) -> dict:
    """A turn result as the browser may see it: grades hidden when live grades are off."""
    view = attempt_view(attempts, attempt_id, None)
    show = _grades_visible(view)
    out = {
        "step": result["step"],
        "turn": result["turn"],
        "grade": result["grade"] if show else None,
        "settled": _public_settle(result["settled"], show),
        "next": result["next"],
        "attempt": view,
    }
    if result.get("stopped"):
        out["stopped"] = result["stopped"]
    return out


class ProposeHandler(Handler):
    """Play step: the attached player's next turn (code for the browser to run in the cell)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._propose(attempt_id))

    async def _propose(self, attempt_id: str):
        body = self.parse(s.StepRequest)
        lab = self.services.lab
        out = await lab.propose(attempt_id, body.step, self.participant)
        view = await lab.call(attempt_view, self.services.attempts, attempt_id, self.participant)
        show = _grades_visible(view)
        recorded = out["result"]  # a reply that ran nothing, recorded as a turn by the server
        public = {k: out[k] for k in ("step", "turn", "action", "code", "tokens", "latency_s")}
        public["recorded"] = recorded is not None
        public["grade"] = recorded["grade"] if recorded and show else None
        public["settled"] = _public_settle(recorded["settled"] if recorded else out["settled"], show)
        return {**public, "next": out["next"], "attempt": view}


class StopHandler(Handler):
    """Stop: cancel the attached player's request in flight."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._stop(attempt_id))

    async def _stop(self, attempt_id: str):
        self.parse(s.StopRequest)
        return {"stopped": await self.services.lab.stop(attempt_id, self.participant)}


class OracleHandler(Handler):
    """``{step, kernel_id, msg_id}``: the browser ran a settled step's reference (oracle)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._oracle(attempt_id))

    async def _oracle(self, attempt_id: str):
        body = self.parse(s.RunReport)
        lab = self.services.lab
        return await lab.reference(attempt_id, body.step, body.kernel_id, body.msg_id, self.participant)


class RecordingsHandler(Handler):
    """Recorded model runs of a task that "Replay a run" can play."""

    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self._recordings())

    async def _recordings(self):
        query = self.parse_query(s.RecordingsQuery)
        lab = self.services.lab
        return await lab.call(lab.recordings, query.task)


class ModelsHandler(Handler):
    """Models the server lets the lab attach: names and protocols, never keys or URLs."""

    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self.services.models.public())


class OpenAPIHandler(Handler):
    """This API's OpenAPI document (docs/openapi.json is its committed copy)."""

    @web.authenticated
    @authorized
    async def get(self):
        from .openapi import document  # built from ROUTES below

        await self.respond(document())


AID = "/attempts/{attempt_id}"

#: Every operation of the API, in the order of docs/api.md: tornado's handlers and the
#: OpenAPI document (docs/openapi.json) are both built from this table.
ROUTES: tuple[Route, ...] = (
    Route("GET", "/openapi.json", OpenAPIHandler, dict[str, Any], "This document"),
    Route("GET", "/tasks", TasksHandler, list[s.TaskSummary], "The task library"),
    Route(
        "POST",
        "/tasks",
        TasksHandler,
        s.NewTaskResult,
        "Make a task from a teacher's solution notebook (check: only say what it would be)",
        body=s.NewTaskRequest,
    ),
    Route("GET", "/tasks/{task_id}", TaskHandler, s.TaskDetail, "One task, without its reference material"),
    Route("GET", "/settings", SettingsHandler, s.ServerSettings, "The server's play settings"),
    Route("GET", "/models", ModelsHandler, list[s.ModelInfo], "Models the lab may attach"),
    Route(
        "GET",
        "/recordings",
        RecordingsHandler,
        list[s.Recording],
        "Recorded model runs of a task, newest first",
        query=s.RecordingsQuery,
    ),
    Route("GET", "/attempts", AttemptsHandler, list[s.AttemptRow], "The caller's attempts, newest first"),
    Route(
        "POST",
        "/attempts",
        AttemptsHandler,
        s.AttemptView,
        "Start an attempt",
        body=s.StartAttempt,
        status=201,
    ),
    Route("GET", AID, AttemptHandler, s.AttemptView, "The attempt view"),
    Route(
        "POST",
        f"{AID}/kernel",
        KernelHandler,
        s.KernelBinding,
        "Bind the kernel that runs the attempt's notebook (restored when new)",
        body=s.KernelReport,
    ),
    Route("GET", f"{AID}/turns", TurnsHandler, list[s.TurnDetail], "Every recorded turn"),
    Route(
        "POST",
        f"{AID}/turns",
        TurnsHandler,
        s.TurnResult,
        "Report a run of the open step's cell: graded from the kernel's own output",
        body=s.RunReport,
    ),
    Route("POST", f"{AID}/next", SettleHandler, s.SettleResult, "Settle the open step", body=s.StepRequest),
    Route(
        "POST", f"{AID}/give-up", GiveUpHandler, s.SettleResult, "Give up the open step", body=s.StepRequest
    ),
    Route(
        "POST",
        f"{AID}/activity",
        ActivityHandler,
        s.Activity,
        "Report edits and runs of the attempt's notebook (keeps its working clock running)",
        body=s.ActivityReport,
    ),
    Route(
        "POST", f"{AID}/pause", PauseHandler, s.AttemptView, "Pause the working clock", body=s.PauseRequest
    ),
    Route(
        "POST",
        f"{AID}/resume",
        ResumeHandler,
        s.AttemptView,
        "Resume the paused working clock",
        body=s.PauseRequest,
    ),
    Route("POST", f"{AID}/note", NoteHandler, s.Note, "Save the person's note on a step", body=s.NoteRequest),
    Route("GET", f"{AID}/trace", TraceHandler, s.Trace, "The action trace: every run and per-cell edits"),
    Route(
        "POST",
        f"{AID}/propose",
        ProposeHandler,
        s.Proposal,
        "The attached player's next turn of the open step",
        body=s.StepRequest,
    ),
    Route(
        "POST",
        f"{AID}/stop",
        StopHandler,
        s.Stopped,
        "Cancel the attached player's request",
        body=s.StopRequest,
    ),
    Route(
        "POST",
        f"{AID}/oracle",
        OracleHandler,
        s.ReferenceResult,
        "Oracle mode: report the run of a settled step's reference cell",
        body=s.RunReport,
    ),
    *STUDY_ROUTES,
)
bind(ROUTES)

#: Path parameters: the regex tornado matches, and what the document says of them.
PARAMS = {
    "attempt_id": (r"[0-9a-f]{32}", "an attempt id (32 hex digits)"),
    "task_id": (r".+", "a task id, <split>/<lib>/<stem>"),
    "study_id": (r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}", "a study id"),
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
