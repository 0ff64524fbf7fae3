"""The one error mapper, and what every cibench-lab handler shares."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property
from http.client import responses
from typing import Any, ClassVar, TypeVar

from jupyter_server.auth.decorator import authorized
from jupyter_server.auth.utils import HTTP_METHOD_TO_AUTH_ACTION
from jupyter_server.base.handlers import APIHandler
from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import DBAPIError
from tornado import web

from ..auth.roles import PARTICIPANT, ROLES, Identity, identity
from ..errors import BadInput, EngineError
from ..models.redact import redact
from ..store.errors import StoreError, write_fault
from ..studies.seat import KEY_HEADER
from ..tasks.errors import TaskError
from .schemas import describe
from .services import Services

AUTH_RESOURCE = "cibench-lab"
API = "/cibench-lab/api"
AID = "/attempts/{attempt_id}"  # the path of an attempt's operations

M = TypeVar("M", bound=BaseModel)

QUOTE_MAX = 200  # characters of one unbroken run (an echoed id, a value) an error message keeps
MESSAGE_MAX = 2000  # characters of a whole error message
_LONG_RUN = re.compile(rf"\S{{{QUOTE_MAX + 1},}}")


def shown(message: str) -> str:
    """An error message as a response or log may hold it: secrets masked, then any long run
    (a multi-megabyte id echoed back) cut to QUOTE_MAX characters and the whole to MESSAGE_MAX."""
    text = _LONG_RUN.sub(lambda m: m.group()[:QUOTE_MAX] + "…", redact(message))
    return text if len(text) <= MESSAGE_MAX else text[:MESSAGE_MAX] + "…"


@dataclass(frozen=True)
class Route:
    """One operation of the API: what tornado serves and what the OpenAPI document says."""

    method: str  # GET | POST
    path: str  # under API, with {attempt_id} / {task_id} parameters
    handler: type[Handler]
    response: Any  # a response model, or list[model]
    summary: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    status: int = 200
    #: who may call it: participant | instructor | researcher, or a tuple of roles any of which will do
    role: str | tuple[str, ...] = field(kw_only=True)
    adapter: TypeAdapter = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.roles or any(role not in ROLES for role in self.roles):
            raise ValueError(f"{self.method} {self.path}: role must be one of {', '.join(ROLES)}")
        object.__setattr__(self, "adapter", TypeAdapter(self.response))

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles any of which lets a caller in."""
        return (self.role,) if isinstance(self.role, str) else tuple(self.role)

    @property
    def role_words(self) -> str:
        """``instructor``, ``instructor or researcher``: the roles as the 403 names them."""
        return " or ".join(self.roles)

    @property
    def permission(self) -> dict[str, str]:
        """What jupyter_server's ``@authorized`` checks for this operation."""
        return {"resource": self.handler.auth_resource, "action": HTTP_METHOD_TO_AUTH_ACTION[self.method]}


def bind(routes: tuple[Route, ...]) -> None:
    """Give each handler class its operations, by HTTP method."""
    for route in routes:
        route.handler.operations = {**route.handler.__dict__.get("operations", {}), route.method: route}


class Handler(APIHandler):
    """JSON in, JSON out; engine errors become 400/403/404/409/502, anything else a logged 500.

    Before any method runs, an authenticated caller must hold the operation's role (403 otherwise)."""

    auth_resource = AUTH_RESOURCE
    operations: ClassVar[dict[str, Route]] = {}
    _identity: Identity | None = None

    async def prepare(self) -> None:  # type:ignore[override]
        await super().prepare()
        route = self.operations.get(self.request.method or "")
        if self.current_user is None or route is None or PARTICIPANT in route.roles:
            return  # unauthenticated: the method's @web.authenticated answers; everyone is a participant
        caller = await self.identity()
        if not any(caller.has(role) for role in route.roles):
            raise web.HTTPError(
                403, "%s %s needs the %s role", self.request.method, route.path, route.role_words
            )

    async def identity(self) -> Identity:
        """The caller's roles and classes, read once a request: the server's user's — or, while a
        participant code is signed in in their place, or at a shared seat with no code signed in
        and without the researcher key (``studies/seat.py``), the participant role alone."""
        if self._identity is None:
            seat = self.services.studies.seat
            if seat.holds_server_roles(self.request.headers.get(KEY_HEADER)):
                self._identity = await self.services.roles.of(self.services.participant)
            else:
                self._identity = identity(self.participant)
        return self._identity

    @property
    def services(self) -> Services:
        return self.settings["cibench_lab"]

    @property
    def participant(self) -> str:
        """Who plays: the server's participant (one per single-user server, as on JupyterHub),
        or the participant code signed in at a study's consent (``studies/seat.py``).

        Token logins without a cookie get a fresh anonymous Jupyter identity on every
        request, so the identity of record is the server's: see ``CIBenchLabApp.participant``.
        """
        return self.services.lab.config.participant

    @cached_property
    def operation(self) -> Route:
        return self.operations[self.request.method]

    def parse(self, model: type[M]) -> M:
        """The request body as ``model``; a 400 naming the field when it does not fit."""
        try:
            return model.model_validate_json(self.request.body or b"{}")
        except ValidationError as err:
            raise BadInput(describe(err)) from None

    def parse_query(self, model: type[M]) -> M:
        """The query arguments (last value of each) as ``model``."""
        args = {k: self.get_query_argument(k) for k in self.request.query_arguments}
        try:
            return model.model_validate(args)
        except ValidationError as err:
            raise BadInput(describe(err)) from None

    async def respond(self, work: Awaitable[object] | object) -> None:
        """Await ``work`` (a coroutine or value), check it against the operation's response
        model and write it with the operation's status, mapping errors in one place."""
        try:
            result = await work if hasattr(work, "__await__") else work
            self.operation.adapter.validate_python(result)
        except (EngineError, TaskError) as err:
            status = err.status if isinstance(err, EngineError) else 400
            if status >= 500:  # the server's own trouble (a folder, an endpoint): the log says it too
                self.log.warning(
                    "cibench-lab: %s %s: %s", self.request.method, self.request.path, shown(str(err))
                )
            self.error(status, str(err))
            return
        except web.HTTPError:
            raise
        except Exception as err:
            self.fault(err)
            return
        self.set_status(self.operation.status)
        self.finish(json.dumps(result))

    def fault(self, err: Exception) -> None:
        """A results database that cannot be written is a 503 saying so (logged in one line);
        anything else a 500, its traceback logged."""
        store = self.services.store
        if isinstance(err, DBAPIError):
            err = write_fault(err, store.url) or err
        if isinstance(err, StoreError):
            self.log.error("cibench-lab: %s %s: %s", self.request.method, self.request.path, shown(str(err)))
            self.error(503, str(err))
            return
        self.log.exception("cibench-lab: %s %s failed", self.request.method, self.request.path)
        self.error(500, "internal error (logged on the server)")

    def error(self, status: int, message: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": shown(message), "status": status}))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Tornado's own errors (403 unauthenticated, 405, XSRF) in the same ``{error, status}`` shape."""
        exc = (kwargs.get("exc_info") or (None, None))[1]
        message = responses.get(status_code, "unknown HTTP error")
        if isinstance(exc, web.HTTPError) and exc.log_message:
            message = exc.log_message % exc.args if exc.args else exc.log_message
        self.log.warning("cibench-lab: %s %s: %s", self.request.method, self.request.path, shown(message))
        self.error(status_code, message)


def _not_found() -> Callable[..., Awaitable[None] | None]:
    """A fresh method per HTTP verb: a bare ``@authorized`` fixes its action at its first call."""

    @web.authenticated
    @authorized
    async def method(self: Handler, *args: Any) -> None:
        self.error(404, f"no such route: {self.request.method} {self.request.path}")

    return method


class NotFoundHandler(Handler):
    """Registered last under the API: any other path is a JSON 404, not Jupyter's page."""

    get, post, put, patch, delete = (_not_found() for _ in range(5))
