"""Shard leases in SQL: acquire, renew, release, list. Each function takes an open session;
the keeper that uses them is coach/fleet/leases.py.

Every change is one statement the database serialises (an upsert whose update is
conditional, an UPDATE ... WHERE run_id = mine), never read-then-write, so two processes
racing for the same shard cannot both win, on PostgreSQL or on SQLite.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from coach.store.models import ShardLease as Row


@dataclass(frozen=True)
class Lease:
    shard_id: int
    shard_count: int
    owner: str
    run_id: str
    acquired_at: datetime
    heartbeat: datetime
    expires_at: datetime

    def live(self, now: datetime) -> bool:
        return self.expires_at > now


def _insert(session: AsyncSession):
    return (postgresql if session.bind.dialect.name == "postgresql" else sqlite).insert(Row)


async def acquire(session: AsyncSession, shard_id: int, *, shard_count: int, owner: str, run_id: str,
                  ttl: timedelta, now: datetime, from_same_owner: bool = False) -> bool:
    """Take the shard's lease if nobody holds it, it has lapsed, or this run already holds it;
    with `from_same_owner`, also from an earlier run of a process of the same name (a restart
    taking its own shards back). True if this run holds it now."""
    statement = _insert(session).values(
        shard_id=shard_id, shard_count=shard_count, owner=owner, run_id=run_id,
        acquired_at=now, heartbeat=now, expires_at=now + ttl,
    )
    takeable = [Row.expires_at <= now, Row.run_id == run_id]
    if from_same_owner:
        takeable.append(Row.owner == owner)
    new = statement.excluded
    statement = statement.on_conflict_do_update(
        index_elements=[Row.shard_id],
        set_={"shard_count": new.shard_count, "owner": new.owner, "run_id": new.run_id,
              "acquired_at": new.acquired_at, "heartbeat": new.heartbeat, "expires_at": new.expires_at},
        where=or_(*takeable),
    ).returning(Row.shard_id)
    return (await session.execute(statement)).first() is not None


async def renew(session: AsyncSession, shard_ids, *, run_id: str, ttl: timedelta, now: datetime) -> set[int]:
    """Extend this run's leases on `shard_ids`; returns those it still holds (the rest were
    taken by another process after they lapsed)."""
    if not shard_ids:
        return set()
    statement = (
        update(Row)
        .where(Row.shard_id.in_(list(shard_ids)), Row.run_id == run_id)
        .values(heartbeat=now, expires_at=now + ttl)
        .returning(Row.shard_id)
    )
    return set((await session.execute(statement)).scalars())


async def release(session: AsyncSession, shard_ids, *, run_id: str, now: datetime) -> None:
    """End this run's leases now (a clean shutdown): a standby may take them at once."""
    if shard_ids:
        await session.execute(
            update(Row).where(Row.shard_id.in_(list(shard_ids)), Row.run_id == run_id).values(expires_at=now)
        )


async def all_leases(session: AsyncSession) -> list[Lease]:
    rows = (await session.execute(select(Row).order_by(Row.shard_id))).scalars()
    return [Lease(r.shard_id, r.shard_count, r.owner, r.run_id, r.acquired_at, r.heartbeat, r.expires_at)
            for r in rows]
