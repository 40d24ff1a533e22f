"""Identify spacing across processes: Discord's session-start limit is per bot, not per process.

GET /gateway/bot returns `session_start_limit`: `total` and `remaining` session starts (1,000
a day for most bots; running out resets the bot's token) and `max_concurrency`, how many
shards may IDENTIFY in one 5-second window. Shards share a window when their ids are equal
modulo `max_concurrency` (their "bucket"). Before each IDENTIFY a process reads the limit,
waits out a spent day, then claims the bucket's slot in the database for five seconds
(`claim_state`): the first process to claim identifies, every other waits for the slot to
lapse. So ten processes restarting together still identify one bucket at a time.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Awaitable, Callable

from sqlalchemy.exc import SQLAlchemyError

from coach.timeutil import utcnow

log = logging.getLogger("coach.fleet")

IDENTIFY_WINDOW_S = 5.0  # Discord: max_concurrency identifies per bucket per 5 seconds
WINDOW_MARGIN_S = 0.25  # the slot outlives the window a little: clocks and sends are not instant
POLL_S = 0.2
STATE_KIND = "identify"


@dataclass(frozen=True)
class SessionStartLimit:
    total: int
    remaining: int
    reset_after_ms: int
    max_concurrency: int

    @classmethod
    def from_discord(cls, data: dict) -> "SessionStartLimit":
        return cls(int(data["total"]), int(data["remaining"]), int(data["reset_after"]),
                   max(1, int(data.get("max_concurrency") or 1)))


FetchLimit = Callable[[], Awaitable[SessionStartLimit]]


class IdentifyGate:
    def __init__(self, store, fetch_limit: FetchLimit, *, owner: str, window_s: float = IDENTIFY_WINDOW_S,
                 clock: Callable[[], datetime] = utcnow, sleep=asyncio.sleep):
        self.store, self.fetch_limit, self.owner = store, fetch_limit, owner
        self.window = timedelta(seconds=window_s + WINDOW_MARGIN_S)
        self.clock, self.sleep = clock, sleep

    async def wait_turn(self, shard_id: int) -> SessionStartLimit | None:
        """Return when `shard_id` may IDENTIFY; the limit it read (None if it could not)."""
        limit = await self._limit()
        while limit is not None and limit.remaining < 1:
            wait_s = limit.reset_after_ms / 1000 + 1
            log.error("no session starts left today; waiting for Discord's reset before identifying",
                      extra={"shard": shard_id, "wait_s": round(wait_s), "total": limit.total})
            await self.sleep(wait_s)
            limit = await self._limit()
        concurrency = limit.max_concurrency if limit is not None else 1
        bucket = shard_id % concurrency
        slot = {"shard": shard_id, "owner": self.owner}
        waited = 0.0
        while True:
            try:
                if await self.store.claim_state(STATE_KIND, f"bucket:{bucket}", slot, self.window,
                                                owner=self.owner, now=self.clock()):
                    break
            except (SQLAlchemyError, OSError):
                # Without the database nobody can coordinate: wait a whole window, then go.
                log.warning("identify slot not claimed (database); waiting a full window", extra={"shard": shard_id})
                await self.sleep(self.window.total_seconds())
                break
            step = POLL_S * (0.5 + random.random())  # jitter: waiting processes do not poll in step
            await self.sleep(step)
            waited += step
        if waited:
            log.info("identify waited for its bucket", extra={"shard": shard_id, "bucket": bucket,
                                                              "waited_s": round(waited, 2)})
        return limit

    async def _limit(self) -> SessionStartLimit | None:
        try:
            return await self.fetch_limit()
        except Exception as error:  # an unreachable REST API must not stop a shard from connecting
            log.warning("session start limit not read; identifying one at a time",
                        extra={"error": type(error).__name__})
            return None
