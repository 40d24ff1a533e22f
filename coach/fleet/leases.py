"""The shard keeper: holds this process's shards by leases in the database.

Every `interval` (a third of the lease) it renews what it holds, stops any shard whose
lease another process took, and claims the shards it wants that nobody holds. A process
with SHARD_IDS wants those; a standby wants every shard and so takes over whatever a dead
process left to lapse. A shard is connected only after its lease is won and stopped as
soon as it is lost or can no longer be confirmed (the database unreachable until the next
renewal would be too late), so two processes never serve one shard knowingly.

A restarted process (same INSTANCE_NAME) takes its own shards back at once rather than
waiting for its dead predecessor's leases to lapse; it does so only on its first claim,
so two live processes misconfigured with one name do not keep stealing from each other.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime, timedelta
from typing import Awaitable, Callable

from sqlalchemy.exc import SQLAlchemyError

from coach.store import leases
from coach.timeutil import utcnow

log = logging.getLogger("coach.fleet")

# Starts connecting a shard and returns at once (the connection goes on in the background).
Connect = Callable[[int], Awaitable[None]]
Disconnect = Callable[[int], Awaitable[None]]


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's rule: which shard carries a guild's events."""
    return (guild_id >> 22) % shard_count


class ShardKeeper:
    def __init__(self, store, *, shard_count: int, own_shards, standby: bool, owner: str, lease_s: float,
                 connect: Connect, disconnect: Disconnect, clock: Callable[[], datetime] = utcnow,
                 run_id: str | None = None):
        self.store, self.shard_count, self.standby, self.owner = store, shard_count, standby, owner
        self.connect, self.disconnect, self.clock = connect, disconnect, clock
        self.run_id = run_id or uuid.uuid4().hex
        self.ttl = timedelta(seconds=lease_s)
        self.interval = lease_s / 3
        self.wanted = frozenset(range(shard_count)) if standby else frozenset(own_shards)
        self.held: set[int] = set()
        self._expiry: dict[int, datetime] = {}  # what the database last confirmed, per held shard
        self._asked: set[int] = set()  # shards already claimed once in this run
        self._started_at: datetime | None = None
        self._count_warned = False
        self._task: asyncio.Task | None = None
        self._closing = False
        self.processes = 1  # processes holding live leases at the last round, this one included


    # ----- one round ------------------------------------------------------------------------
    async def step(self) -> None:
        now = self.clock()
        if self._started_at is None:
            self._started_at = now
        try:
            await self._renew(now)
            current = {lease.shard_id: lease for lease in await self._db(leases.all_leases, read_only=True)}
            self.processes = max(1, len({lease.run_id for lease in current.values() if lease.live(now)}
                                        | ({self.run_id} if self.held or not self.standby else set())))
            await self._claim(now, current)
        except (SQLAlchemyError, OSError, TimeoutError) as error:
            log.warning("shard leases not confirmed", extra={"error": type(error).__name__, "held": sorted(self.held)})
        await self._fence()

    async def _db(self, work, *, read_only: bool = False):
        """Run `work`, giving up while a renewal could still be of use: a slow database (a busy
        SQLite file, a failing-over PostgreSQL) gets until a tenth of a lease before the
        earliest held lease lapses, or one round when nothing is held."""
        timeout = self.interval
        if self._expiry:
            left = (min(self._expiry.values()) - self.clock()).total_seconds() - self.ttl.total_seconds() / 10
            timeout = max(left, 0.05)
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancel that arrives
        # just as its work finishes, and close() would then wait on a keeper that never stops.
        async with asyncio.timeout(timeout):
            return await self.store.run(work, read_only=read_only)

    async def _renew(self, now: datetime) -> None:
        if not self.held:
            return
        held = set(self.held)
        kept = await self._db(lambda db: leases.renew(db, held, run_id=self.run_id, ttl=self.ttl, now=now))
        for shard_id in kept:
            self._expiry[shard_id] = now + self.ttl
        for shard_id in sorted(held - kept):
            await self._drop(shard_id, "shard lease lost")

    async def _claim(self, now: datetime, current: dict) -> None:
        missing = self.wanted - self.held
        if not missing:
            return
        if self._other_shard_count(current.values(), now):
            return
        for shard_id in sorted(missing):
            lease = current.get(shard_id)
            first = shard_id not in self._asked
            self._asked.add(shard_id)
            if lease is not None and lease.live(now) and lease.run_id != self.run_id \
                    and not (first and lease.owner == self.owner):
                if first and not self.standby:
                    log.warning("shard held by another process; waiting for its lease to lapse",
                                extra={"shard": shard_id, "holder": lease.owner})
                continue
            if self.standby and lease is None and now < self._started_at + self.ttl:
                continue  # never held: give the process it belongs to one lease period to start
            won = await self._db(lambda db, s=shard_id, f=first: leases.acquire(
                db, s, shard_count=self.shard_count, owner=self.owner, run_id=self.run_id, ttl=self.ttl,
                now=now, from_same_owner=f))
            if not won:
                continue
            self.held.add(shard_id)
            self._expiry[shard_id] = now + self.ttl
            previous = None if lease is None else lease.owner
            log.warning("shard lease acquired", extra={"shard": shard_id, "owner": self.owner, "from": previous,
                                                       "lapsed": bool(lease and not lease.live(now))})
            await self.connect(shard_id)

    def _other_shard_count(self, current, now: datetime) -> bool:
        """Live leases cut for another SHARD_COUNT mean a reshard is half done: claim nothing
        (the same shard id then covers other guilds)."""
        other = sorted({lease.shard_count for lease in current
                        if lease.live(now) and lease.run_id != self.run_id and lease.shard_count != self.shard_count})
        if other and not self._count_warned:
            log.error("live shard leases were taken with another SHARD_COUNT; claiming none until they lapse",
                      extra={"ours": self.shard_count, "theirs": other})
        self._count_warned = bool(other)
        return bool(other)

    async def _fence(self) -> None:
        """Stop each shard whose lease would lapse before the next round could renew it."""
        horizon = self.clock() + timedelta(seconds=self.interval)
        for shard_id in sorted(self.held):
            if self._expiry[shard_id] <= horizon:
                await self._drop(shard_id, "shard stopped: its lease could not be renewed")

    async def _drop(self, shard_id: int, event: str) -> None:
        self.held.discard(shard_id)
        self._expiry.pop(shard_id, None)
        log.warning(event, extra={"shard": shard_id, "owner": self.owner})
        await self.disconnect(shard_id)

    # ----- lifecycle -------------------------------------------------------------------------
    def start(self) -> asyncio.Task:
        if self.standby:
            log.warning("standing by", extra={"owner": self.owner, "shard_count": self.shard_count})
        self._task = asyncio.create_task(self._run(), name="shard-keeper")
        return self._task

    async def _run(self) -> None:
        while not self._closing:
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug in a callback must not stop the renewals of the other shards
                log.exception("shard keeper round failed")
            await asyncio.sleep(self.interval)

    async def close(self) -> None:
        """Stop renewing and end this run's leases, so another process may take them at once."""
        self._closing = True  # the round in progress ends the loop even if its cancel is lost
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        held, self.held = sorted(self.held), set()
        if held:
            try:
                await self.store.run(lambda db: leases.release(db, held, run_id=self.run_id, now=self.clock()))
            except (SQLAlchemyError, OSError):
                log.warning("shard leases not released; they will lapse", extra={"shards": held})
