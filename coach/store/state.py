"""Expiring state: short-lived rows keyed by (kind, key) that every process sees.

Each function takes an open session, so a caller can combine one with other writes in
a single transaction; `Store` wraps each in a transaction of its own. Atomicity comes
from single statements the database serialises (an upsert with a condition, a DELETE
... RETURNING), not from read-then-write, so it holds across processes on PostgreSQL
and on SQLite alike. A row whose `expires_at` is not in the future counts as absent.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from coach.store.models import ExpiringStateRow as Row
from coach.timeutil import utcnow

# How often the bot deletes expired rows (bot/discord/client.py runs `Store.purge_expired_state`);
# anything promised "deleted within" a time counts this in.
PURGE_EVERY = timedelta(minutes=1)

MAX_KIND = 40
MAX_KEY = 200
MAX_OWNER = 100


def user_owner(user_id: int) -> str:
    """The `owner` of a user's rows, so `/forget` finds them all."""
    return f"user:{int(user_id)}"


def _checked(kind: str, key: str, owner: str | None = None) -> None:
    # Callers build kinds and keys in code, so a bad one is a bug: fail loudly, early.
    if not kind or len(kind) > MAX_KIND:
        raise ValueError(f"state kind must be 1-{MAX_KIND} characters, got {kind!r}")
    if not key or len(key) > MAX_KEY:
        raise ValueError(f"state key must be 1-{MAX_KEY} characters, got {len(key or '')}")
    if owner is not None and len(owner) > MAX_OWNER:
        raise ValueError(f"state owner must be at most {MAX_OWNER} characters")


def _clock(now: datetime | None) -> datetime:
    if now is None:
        return utcnow()
    if now.tzinfo is None:
        raise ValueError("naive datetime given as now; pass an aware UTC datetime")
    return now


def _expiry(ttl: timedelta, now: datetime) -> datetime:
    if ttl <= timedelta(0):
        raise ValueError(f"ttl must be positive, got {ttl}")
    return now + ttl


def _insert(session: AsyncSession):
    dialect = session.bind.dialect.name
    return (postgresql if dialect == "postgresql" else sqlite).insert(Row)


def _values(kind: str, key: str, value: dict, owner: str | None, ttl: timedelta, now: datetime) -> dict:
    if not isinstance(value, dict):
        raise TypeError(f"state value must be a dict, got {type(value).__name__}")
    _checked(kind, key, owner)
    return dict(kind=kind, key=key, value=value, owner=owner, expires_at=_expiry(ttl, now), updated_at=now)


def _upsert(session: AsyncSession, values: dict, *, where=None):
    statement = _insert(session).values(**values)
    excluded = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=[Row.kind, Row.key],
        set_={"value": excluded.value, "owner": excluded.owner,
              "expires_at": excluded.expires_at, "updated_at": excluded.updated_at},
        where=where,
    )


async def put(session: AsyncSession, kind: str, key: str, value: dict, ttl: timedelta, *,
              owner: str | None = None, now: datetime | None = None) -> None:
    """Write the row, replacing whatever was there (live or not)."""
    now = _clock(now)
    await session.execute(_upsert(session, _values(kind, key, value, owner, ttl, now)))


async def claim(session: AsyncSession, kind: str, key: str, value: dict, ttl: timedelta, *,
                owner: str | None = None, reclaim_own: bool = False, now: datetime | None = None) -> bool:
    """Insert the row unless a live one exists. True if this call wrote it.

    `reclaim_own`: a live row of the same `owner` counts as free too (a restarted
    process taking back its own claim; the owner must then name one process only).

    One statement: on a conflict the existing row is replaced only if it has expired.
    PostgreSQL locks the conflicting row and re-checks the condition on its newest
    version, so of two concurrent claims exactly one returns a row; SQLite runs
    writers one at a time (BEGIN IMMEDIATE)."""
    now = _clock(now)
    values = _values(kind, key, value, owner, ttl, now)
    free = Row.expires_at <= now
    if reclaim_own:
        if owner is None:
            raise ValueError("reclaim_own needs an owner")
        free = or_(free, Row.owner == owner)
    statement = _upsert(session, values, where=free).returning(Row.kind)
    return (await session.execute(statement)).first() is not None


async def get(session: AsyncSession, kind: str, key: str, *, now: datetime | None = None) -> dict | None:
    now = _clock(now)
    return await session.scalar(
        select(Row.value).where(Row.kind == kind, Row.key == key, Row.expires_at > now)
    )


async def get_row(session: AsyncSession, kind: str, key: str, *,
                  now: datetime | None = None) -> dict[str, Any] | None:
    """The live row's value, owner and expiry (for callers that need more than the value)."""
    now = _clock(now)
    row = (await session.execute(
        select(Row.value, Row.owner, Row.expires_at).where(Row.kind == kind, Row.key == key, Row.expires_at > now)
    )).first()
    return None if row is None else {"value": row.value, "owner": row.owner, "expires_at": row.expires_at}


async def take(session: AsyncSession, kind: str, key: str, *, now: datetime | None = None) -> dict | None:
    """Delete the row and return its value if it was live: of two concurrent takes,
    one gets the value and the other None. An expired row is deleted and yields None."""
    now = _clock(now)
    row = (await session.execute(
        delete(Row).where(Row.kind == kind, Row.key == key).returning(Row.value, Row.expires_at)
    )).first()
    if row is None or row.expires_at <= now:
        return None
    return row.value


async def remove(session: AsyncSession, kind: str, key: str) -> None:
    await session.execute(delete(Row).where(Row.kind == kind, Row.key == key))


async def remove_owned(session: AsyncSession, owner: str) -> int:
    """Every row of one owner, live or not (used by `/forget`)."""
    result = await session.execute(delete(Row).where(Row.owner == owner))
    return result.rowcount or 0


async def purge_expired(session: AsyncSession, *, now: datetime | None = None) -> int:
    now = _clock(now)
    result = await session.execute(delete(Row).where(Row.expires_at <= now))
    return result.rowcount or 0
