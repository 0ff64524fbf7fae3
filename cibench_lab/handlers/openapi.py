"""The OpenAPI document of /cibench-lab/api/, built from the route table and the models.

``python -m cibench_lab.handlers.openapi > docs/openapi.json`` writes the committed copy
(``jlpm gen:api`` then builds ``src/schema.ts`` from it); a test fails when either drifts.
Each operation's ``x-permission`` is the ``{resource, action}`` that jupyter_server's
authorizer is asked for it, and its ``x-role`` the role the caller must hold (participant,
instructor or researcher; ``auth/roles.py``), or a list of roles any of which will do.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode

from .base import API, Route
from .routes import PARAMS, ROUTES
from .schemas import Error

if TYPE_CHECKING:  # pydantic's own name for the argument, declared for type checkers only
    from pydantic._internal._core_utils import CoreSchemaOrField

REF = "#/components/schemas/{model}"
API_VERSION = "1"  # of the API, not the package: raise it when a change breaks a client


class _Schema(GenerateJsonSchema):
    """Pydantic's JSON schema without a title on every property (its name says it)."""

    def field_title_should_be_set(self, schema: CoreSchemaOrField) -> bool:
        return False


def _schemas(routes: tuple[Route, ...]) -> tuple[dict, dict[str, Any]]:
    inputs: list[tuple[tuple[str, ...], JsonSchemaMode, TypeAdapter[Any]]] = [
        (("error", "response"), "validation", TypeAdapter(Error))
    ]
    for r in routes:
        inputs.append(((r.method, r.path, "response"), "validation", r.adapter))
        for part in ("body", "query"):
            model = getattr(r, part)
            if model is not None:
                inputs.append(((r.method, r.path, part), "validation", TypeAdapter(model)))
    refs, defs = TypeAdapter.json_schemas(inputs, ref_template=REF, schema_generator=_Schema)
    models = defs.get("$defs", {})
    for schema in models.values():
        schema.pop("title", None)  # the name it is filed under says it
    return {key: schema for (key, _), schema in refs.items()}, models


def _json(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


def _parameters(route: Route, query: dict | None, defs: dict) -> list[dict]:
    out = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "description": PARAMS[name][1],
            "schema": {"type": "string"},
        }
        for name in re.findall(r"{(\w+)}", route.path)
    ]
    if query is not None:
        model = defs[query["$ref"].rsplit("/", 1)[1]]
        for name, prop in model["properties"].items():
            desc = prop.get("description", "")
            schema = {k: v for k, v in prop.items() if k != "description"}
            out.append({"name": name, "in": "query", "description": desc, "schema": schema})
    return out


def _operation(route: Route, refs: dict, defs: dict) -> dict:
    key = (route.method, route.path)
    op: dict[str, Any] = {
        "operationId": f"{route.method.lower()}_{re.sub(r'[^a-z]+', '_', route.path).strip('_')}",
        "summary": route.summary,
        "x-permission": route.permission,
        "x-role": route.role if isinstance(route.role, str) else list(route.roles),
    }
    params = _parameters(route, refs.get(key + ("query",)), defs)
    if params:
        op["parameters"] = params
    if route.body is not None:
        op["requestBody"] = {"required": True, "content": _json(refs[key + ("body",)])}
    op["responses"] = {
        str(route.status): {"description": route.summary, "content": _json(refs[key + ("response",)])},
        "default": {"description": "an error", "content": _json(refs[("error", "response")])},
    }
    return op


def document(routes: tuple[Route, ...] = ROUTES) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes``."""
    refs, defs = _schemas(routes)
    paths: dict[str, dict] = {}
    for route in routes:
        paths.setdefault(API + route.path, {})[route.method.lower()] = _operation(route, refs, defs)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cibench-lab",
            "version": API_VERSION,
            "description": (
                "The REST API of the cibench-lab server extension (docs/api.md). Every route needs an "
                "authenticated Jupyter user holding the operation's x-role; POSTs also need the XSRF "
                "token. Every error is {error, status}."
            ),
        },
        "paths": paths,
        "components": {"schemas": defs},
    }


def text(routes: tuple[Route, ...] = ROUTES) -> str:
    """The document as committed in docs/openapi.json."""
    return json.dumps(document(routes), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(text(), end="")
