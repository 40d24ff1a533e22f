"""Who sends a server's daily post, across bot processes, and the once-a-day notices.

Two expiring-state rows per post (guild, channel, local date):

- the *lease* (`daily_post_lease`, short): the process sending the post now. Claimed
  before sending, ended once the message id is recorded or the send was refused; a
  process that dies mid-send leaves it to lapse, and then another may take over.
- the *record* (`daily_post`, kept two days): written when a lease is granted, with the
  sent message id once there is one. A process granted a lease that finds a record
  without a message id knows an earlier send may have reached Discord, so it checks the
  channel before sending again.

A post the channel refused (no permission, channel gone) is marked blocked for the day:
the poster stops retrying it until tomorrow and the admin is told once, by one process.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Callable, Literal

from sqlalchemy import select

from coach.store import state
from coach.store.models import DailyPickRow
from coach.timeutil import utcnow

LEASE_KIND = "daily_post_lease"
RECORD_KIND = "daily_post"
BLOCKED_KIND = "daily_post_blocked"
NOTICE_KIND = "guild_notice"
# Long enough for a send with Discord's rate-limit retries and a picture upload.
POST_LEASE = timedelta(seconds=60)
# The record and the blocked mark matter for the post's own day (local dates span ~50 hours of UTC).
DAY_MEMORY = timedelta(days=2)


@dataclass(frozen=True)
class PostClaim:
    """`granted`: send it (after looking in the channel first when `check_channel`);
    `sent`: it went out (`message_id`); `busy`: another process is sending it now;
    `blocked`: the channel refused it today."""

    status: Literal["granted", "sent", "busy", "blocked"]
    message_id: int | None = None
    check_channel: bool = False


def _key(guild_id: int, local_date: date, channel_id: int) -> str:
    return f"{int(guild_id)}:{int(channel_id)}:{local_date.isoformat()}"


class DailyPostClaims:
    def __init__(self, store, clock: Callable[[], datetime] = utcnow, lease: timedelta = POST_LEASE):
        self.store, self.clock, self.lease = store, clock, lease

    async def claim(self, guild_id: int, local_date: date, holder: str, *, channel_id: int) -> PostClaim:
        """Take the right to send the day's post. `holder` names this process (stable
        across its restarts): a restarted process takes back its own lease at once
        instead of waiting for it to lapse."""
        key, now = _key(guild_id, local_date, channel_id), self.clock()

        async def work(db) -> PostClaim:
            pick = await db.scalar(
                select(DailyPickRow).where(DailyPickRow.guild_id == guild_id, DailyPickRow.channel_id == channel_id,
                                           DailyPickRow.local_date == local_date)
            )
            if pick is not None and pick.sent_at is not None:
                return PostClaim("sent", message_id=(pick.message_ids or [None])[0])
            if await state.get(db, BLOCKED_KIND, key, now=now) is not None:
                return PostClaim("blocked")
            if not await state.claim(db, LEASE_KIND, key, {"holder": holder}, self.lease, owner=holder,
                                     reclaim_own=True, now=now):
                return PostClaim("busy")
            record = await state.get(db, RECORD_KIND, key, now=now)
            if record is not None and record.get("message_id"):
                return PostClaim("sent", message_id=record["message_id"])
            await state.put(db, RECORD_KIND, key, {"holder": holder, "message_id": None}, DAY_MEMORY, now=now)
            return PostClaim("granted", check_channel=record is not None)

        return await self.store.run(work)

    async def record_sent(self, guild_id: int, local_date: date, holder: str, message_id: int, *,
                          channel_id: int) -> None:
        """The post is in the channel: keep its id on the record and end the lease."""
        key, now = _key(guild_id, local_date, channel_id), self.clock()

        async def work(db) -> None:
            await state.put(db, RECORD_KIND, key, {"holder": holder, "message_id": int(message_id)}, DAY_MEMORY,
                            now=now)
            await state.remove(db, LEASE_KIND, key)

        await self.store.run(work)

    async def give_up(self, guild_id: int, local_date: date, *, channel_id: int) -> bool:
        """The channel refused the post (nothing was sent): end the lease and the record,
        and block the post until the next day. True for the first process to give up
        today, which is the one that tells the admin."""
        key, now = _key(guild_id, local_date, channel_id), self.clock()

        async def work(db) -> bool:
            await state.remove(db, LEASE_KIND, key)
            await state.remove(db, RECORD_KIND, key)
            return await state.claim(db, BLOCKED_KIND, key, {}, DAY_MEMORY, now=now)

        return await self.store.run(work)

    async def first_notice(self, guild_id: int, about: str, period: timedelta) -> bool:
        """True for the first caller, in any process, to tell this server's admin `about`
        within `period`; False for everyone after, until it lapses."""
        return await self.store.claim_state(NOTICE_KIND, f"{int(guild_id)}:{about}", {}, period, now=self.clock())
