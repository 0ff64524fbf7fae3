"""Thin handlers under /cibench-lab/api/ (documented in docs/api.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..engine.errors import NotFound
from ..engine.view import attempt_view, grades_visible, turns_view
from .base import Handler

API = "/cibench-lab/api"


class TasksHandler(Handler):
    @web.authenticated
    @authorized
    async def get(self):
        await self.respond([t.summary() for t in self.services.library.select(None)])


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
        await self.respond(self._start(), status=201)

    async def _start(self):
        body = self.body("task_id", "mode")
        lab = self.services.lab
        attempt_id = await lab.start(
            body["task_id"], body["mode"], self.participant, body.get("settings"), body.get("player")
        )
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
        body = self.body("kernel_id")
        return await self.services.lab.bind(attempt_id, body["kernel_id"], self.participant)


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
        body = self.body("step", "kernel_id", "msg_id")  # any "outputs" field is ignored
        lab = self.services.lab
        result = await lab.turn(attempt_id, body["step"], body["kernel_id"], body["msg_id"], self.participant)
        return await lab.call(public_turn, self.services.attempts, attempt_id, result)


class SettleHandler(Handler):
    """Next step / give up: settles the open step."""

    outcome = "next"

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._settle(attempt_id))

    async def _settle(self, attempt_id: str):
        body = self.body("step")
        lab = self.services.lab
        settled = await lab.settle(attempt_id, body["step"], self.outcome, self.participant)
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
    return {
        "step": result["step"],
        "turn": result["turn"],
        "grade": result["grade"] if show else None,
        "settled": _public_settle(result["settled"], show),
        "next": result["next"],
        "attempt": view,
    }


class ProposeHandler(Handler):
    """Play step: the attached player's next turn (code for the browser to run in the cell)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._propose(attempt_id))

    async def _propose(self, attempt_id: str):
        body = self.body("step")
        lab = self.services.lab
        out = await lab.propose(attempt_id, body["step"], self.participant)
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
        return {"stopped": await self.services.lab.stop(attempt_id, self.participant)}


class OracleHandler(Handler):
    """``{step, kernel_id, msg_id}``: the browser ran a settled step's reference (oracle)."""

    @web.authenticated
    @authorized
    async def post(self, attempt_id: str):
        await self.respond(self._oracle(attempt_id))

    async def _oracle(self, attempt_id: str):
        body = self.body("step", "kernel_id", "msg_id")
        lab = self.services.lab
        return await lab.reference(
            attempt_id, body["step"], body["kernel_id"], body["msg_id"], self.participant
        )


class RecordingsHandler(Handler):
    """Recorded model runs of a task that "Replay a run" can play."""

    @web.authenticated
    @authorized
    async def get(self):
        task_id = self.get_query_argument("task", "")
        lab = self.services.lab
        await self.respond(lab.call(lab.recordings, task_id))


class ModelsHandler(Handler):
    """Models the server lets the lab attach: names and protocols, never keys or URLs."""

    @web.authenticated
    @authorized
    async def get(self):
        await self.respond(self.services.models.public())


def handlers() -> list[tuple[str, type]]:
    aid = r"([0-9a-f]{32})"
    return [
        (rf"{API}/tasks", TasksHandler),
        (rf"{API}/tasks/(.+)", TaskHandler),
        (rf"{API}/settings", SettingsHandler),
        (rf"{API}/models", ModelsHandler),
        (rf"{API}/recordings", RecordingsHandler),
        (rf"{API}/attempts", AttemptsHandler),
        (rf"{API}/attempts/{aid}", AttemptHandler),
        (rf"{API}/attempts/{aid}/kernel", KernelHandler),
        (rf"{API}/attempts/{aid}/turns", TurnsHandler),
        (rf"{API}/attempts/{aid}/next", SettleHandler),
        (rf"{API}/attempts/{aid}/give-up", GiveUpHandler),
        (rf"{API}/attempts/{aid}/propose", ProposeHandler),
        (rf"{API}/attempts/{aid}/stop", StopHandler),
        (rf"{API}/attempts/{aid}/oracle", OracleHandler),
    ]
