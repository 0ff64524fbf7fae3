"""Times: aware UTC in the code, one way to write them (``...Z``) and one to read them back.

Every time the code makes is aware UTC (:func:`utcnow`). The database holds UTC: SQLite as the
naive text it always held, PostgreSQL as ``timestamp with time zone`` (revision 0007); a stored
naive value (an older database, a row written before that revision) is read as UTC. The API,
exports and recorded details write a time as :func:`iso` does: ISO 8601 in UTC with a ``Z``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

UTC = dt.timezone.utc


def utcnow() -> dt.datetime:
    """Now, aware UTC."""
    return dt.datetime.now(UTC)


def as_utc(at: dt.datetime) -> dt.datetime:
    """``at`` as aware UTC; a naive ``at`` is UTC already (what the database held before)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def iso(at: dt.datetime | None, timespec: str = "auto") -> str | None:
    """``at`` in ISO 8601, in UTC with its ``Z`` (``timespec`` as :meth:`datetime.isoformat`);
    None stays None. The one serializer of times for the API, exports and recorded details."""
    if at is None:
        return None
    return as_utc(at).replace(tzinfo=None).isoformat(timespec=timespec) + "Z"


def parse_iso(text: str) -> dt.datetime:
    """A time :func:`iso` wrote (or any ISO 8601 time; no offset means UTC), as aware UTC."""
    return as_utc(dt.datetime.fromisoformat(text.removesuffix("Z")))


class UTCDateTime(TypeDecorator[dt.datetime]):
    """A time column: aware UTC in and out. PostgreSQL stores ``timestamp with time zone``;
    SQLite its naive UTC text as before (the same bytes: no SQLite migration)."""

    impl = DateTime
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        return dialect.type_descriptor(DateTime(timezone=dialect.name == "postgresql"))

    def process_bind_param(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        if value is None:
            return None
        at = as_utc(value)
        return at if dialect.name == "postgresql" else at.replace(tzinfo=None)

    def process_result_value(self, value: dt.datetime | None, dialect: Dialect) -> dt.datetime | None:
        return None if value is None else as_utc(value)
