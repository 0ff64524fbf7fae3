"""Results store: SQLAlchemy tables and the queries the engine needs."""

from .db import Store, default_url

__all__ = ["Store", "default_url"]
