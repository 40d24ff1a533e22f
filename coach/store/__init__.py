"""Persistence: SQLAlchemy 2 async models and the `Store` (SQLite or PostgreSQL)."""

from coach.store.store import Store

__all__ = ["Store"]
