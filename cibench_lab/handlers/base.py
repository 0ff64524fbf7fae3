"""The one error mapper, and what every cibench-lab handler shares."""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.auth.decorator import authorized  # noqa: F401  (re-exported for handlers)
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..engine.errors import BadInput, EngineError
from ..tasks.errors import TaskError

AUTH_RESOURCE = "cibench-lab"


class Handler(APIHandler):
    """JSON in, JSON out; engine errors become 400/403/404/409, anything else a logged 500."""

    auth_resource = AUTH_RESOURCE

    @property
    def services(self):
        return self.settings["cibench_lab"]

    @property
    def participant(self) -> str:
        """Who plays: the server's participant (one per single-user server, as on JupyterHub).

        Token logins without a cookie get a fresh anonymous Jupyter identity on every
        request, so the identity of record is the server's: see ``CIBenchLabApp.participant``.
        """
        return self.services.participant

    def body(self, *required: str) -> dict[str, Any]:
        try:
            data = json.loads(self.request.body or b"{}")
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise BadInput(f"request body is not JSON ({err})") from None
        if not isinstance(data, dict):
            raise BadInput("request body must be a JSON object")
        missing = [k for k in required if k not in data]
        if missing:
            raise BadInput(f"missing field(s): {', '.join(missing)}")
        return data

    async def respond(self, work, status: int = 200) -> None:
        """Await ``work`` (a coroutine or value) and write it, mapping errors in one place."""
        try:
            result = await work if hasattr(work, "__await__") else work
        except (EngineError, TaskError) as err:
            code = err.status if isinstance(err, EngineError) else 400
            self.set_status(code)
            self.finish(json.dumps({"error": str(err), "status": code}))
            return
        except web.HTTPError:
            raise
        except Exception:
            self.log.exception("cibench-lab: %s %s failed", self.request.method, self.request.path)
            self.set_status(500)
            self.finish(json.dumps({"error": "internal error (logged on the server)", "status": 500}))
            return
        self.set_status(status)
        self.finish(json.dumps(result))
