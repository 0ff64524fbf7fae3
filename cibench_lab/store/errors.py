"""The one error the store raises: a results database this code cannot use."""

from __future__ import annotations

from sqlalchemy.engine import make_url


class StoreError(Exception):
    """The message is one line for a person (no traceback); URLs in it carry no password."""


class NeedsUpgrade(StoreError):
    """The database is behind this code and this start may not upgrade it."""


def shown(url: str) -> str:
    """``url`` as it may be printed: the password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy can parse: print nothing of it but its scheme
        return url.split(":", 1)[0] + ":…"


def first_line(err: BaseException) -> str:
    """The driver's own reason, one line (SQLAlchemy wraps it with the statement)."""
    orig = getattr(err, "orig", None) or err
    text = str(orig).strip() or type(orig).__name__
    return text.splitlines()[0]


#: What a driver says when the database cannot take a write (read-only, permissions, full disk).
WRITE_FAULTS = (
    "readonly",
    "read-only",
    "permission denied",
    "unable to open database file",
    "disk is full",
    "no space left",
    "disk i/o error",
)


def write_fault(err: BaseException, url: str) -> StoreError | None:
    """``err`` as one line naming the database and the fix when it means the database cannot
    be written; None for any other error (a fault of the code, for the log)."""
    reason = first_line(err)
    low = reason.lower()
    if not any(word in low for word in WRITE_FAULTS):
        return None
    full = "full" in low or "no space" in low
    fix = "free space on its disk" if full else "make it writable or choose another database"
    return StoreError(f"the results database at {shown(url)} cannot be written: {reason}; {fix}")
