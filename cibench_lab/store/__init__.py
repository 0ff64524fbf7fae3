"""Results store: SQLAlchemy tables, their migrations and the queries the engine needs."""

from .db import DATABASE_URL_VAR, Store, configured_url, default_url, open_engine
from .errors import NeedsUpgrade, StoreError

__all__ = [
    "DATABASE_URL_VAR",
    "NeedsUpgrade",
    "Store",
    "StoreError",
    "configured_url",
    "default_url",
    "open_engine",
]
