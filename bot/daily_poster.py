"""The daily poster and the reminder DMs: background loops over coach services.

A post is sent exactly once: the pick is recorded before sending, the message goes
out with a nonce derived from the pick (`enforce_nonce`, so Discord drops a resend
after a crash), and the post is marked sent only after Discord accepted it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Awaitable, Callable

from bot import render
from bot.replies import Reply
from coach.errors import CoachError, NotFound

log = logging.getLogger("coach.bot.daily")

# (channel_id, reply, nonce) -> the sent message id. Raises PermissionError when the
# bot may not post there, LookupError when the channel is gone.
Send = Callable[[int, Reply, str], Awaitable[int]]
# (guild_id, text) -> None: tell the server's admin something once.
Warn = Callable[[int, str], Awaitable[None]]
# (user_id, text) -> None
DirectMessage = Callable[[int, str], Awaitable[None]]


class DailyPoster:
    def __init__(self, coach, catalog, send: Send, warn: Warn | None = None):
        self.coach, self.catalog, self.send, self.warn = coach, catalog, send, warn
        self._blocked: dict[int, object] = {}  # guild -> local date we gave up posting on

    async def post(self, due) -> int | None:
        """Send one due post; returns the message id, or None when it could not go out."""
        guild_id, day = due.schedule.guild_id, due.local_date
        if self._blocked.get(guild_id) == day:
            return None
        pick = await self.coach.pick_daily(guild_id, day, due.schedule.track)  # recorded before sending
        if pick.sent:
            return pick.message_ids[0] if pick.message_ids else None
        try:
            yesterday = await self.coach.daily_results(guild_id, day - timedelta(days=1))
        except NotFound:
            yesterday = None
        reply = render.daily_post(pick, self.catalog.bites[pick.bite_id], yesterday)
        try:
            message_id = await self.send(due.schedule.channel_id, reply, pick.nonce)
        except (PermissionError, LookupError) as error:
            self._blocked[guild_id] = day
            log.warning("daily post blocked", extra={"guild": guild_id, "channel": due.schedule.channel_id,
                                                     "reason": str(error)})
            if self.warn is not None:
                await self._warn(guild_id, due.schedule.channel_id)
            return None
        await self.coach.mark_daily_sent(guild_id, day, [message_id])
        log.info("daily post sent", extra={"guild": guild_id, "date": day.isoformat(), "message_id": message_id})
        return message_id

    async def _warn(self, guild_id: int, channel_id: int) -> None:
        text = (f"I couldn't post today's daily bite in <#{channel_id}>: I'm missing permission to send messages "
                "there. Give me *Send Messages* and *Embed Links* in that channel, or choose another with `/daily set`.")
        try:
            await self.warn(guild_id, text)
        except Exception:  # the warning is best effort; the post itself is what matters
            log.warning("could not warn the admin", extra={"guild": guild_id}, exc_info=True)

    async def run_once(self) -> int:
        """Send every post that is due now; returns how many went out."""
        sent = 0
        for due in await self.coach.due_posts():
            try:
                sent += await self.post(due) is not None
            except CoachError:
                log.exception("daily post failed", extra={"guild": due.schedule.guild_id})
        return sent


class Reminders:
    def __init__(self, coach, dm: DirectMessage):
        self.coach, self.dm = coach, dm

    @staticmethod
    def text(reminder) -> str:
        parts = []
        if reminder.reviews_due:
            parts.append(f"{reminder.reviews_due} review{'s' if reminder.reviews_due != 1 else ''} due — `/review`")
        if reminder.streak_at_risk:
            parts.append(f"your {reminder.streak}-day streak ends tonight — one `/quiz` answer keeps it")
        body = "; ".join(parts) or "time for a little practice"
        return f"Interview Coach reminder: {body}. (Turn these off with `/settings reminders:false`.)"

    async def run_once(self) -> int:
        sent = 0
        for reminder in await self.coach.reminders_due():
            try:
                await self.dm(reminder.user_id, self.text(reminder))
                sent += 1
            except Exception:  # closed DMs are common; never let one user stop the rest
                log.info("reminder not delivered", extra={"user": reminder.user_id})
        return sent


async def every(seconds: float, job: Callable[[], Awaitable[object]], name: str) -> None:
    """Run `job` forever, `seconds` apart; an error is logged and the loop goes on."""
    while True:
        try:
            await job()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("background job failed", extra={"job": name})
        await asyncio.sleep(seconds)
