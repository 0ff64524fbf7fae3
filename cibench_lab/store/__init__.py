"""Results store: SQLAlchemy tables, their migrations and the queries the engine needs."""

from .db import Store, default_url, open_engine
from .errors import NeedsUpgrade, StoreError

__all__ = ["NeedsUpgrade", "Store", "StoreError", "default_url", "open_engine"]
