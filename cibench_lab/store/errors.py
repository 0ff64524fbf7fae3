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
