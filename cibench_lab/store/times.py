"""Times as the database holds them (UTC, naive) and as the API and exports write them."""

from __future__ import annotations

from datetime import datetime


def iso(at: datetime | None) -> str | None:
    """``at`` (a UTC time from the database) in ISO 8601 with its ``Z``; None stays None."""
    return None if at is None else at.isoformat() + "Z"
