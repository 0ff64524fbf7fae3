"""Errors the engine raises; the handlers' one error mapper turns them into HTTP codes."""


class EngineError(Exception):
    status = 500


class BadInput(EngineError):
    """400: the request is malformed or names something impossible."""

    status = 400


class NotFound(EngineError):
    """404: unknown task, attempt or step."""

    status = 404


class Forbidden(EngineError):
    """403: not yours."""

    status = 403


class Conflict(EngineError):
    """409: valid request, wrong moment (step already settled, msg_id used, ...)."""

    status = 409


class Unavailable(EngineError):
    """502: a service the server calls for the request (a model endpoint) failed."""

    status = 502


class Unwritable(EngineError):
    """503: the server cannot write a folder or database it needs (read-only, full, missing);
    the message names the path and the fix."""

    status = 503
