"""The daily poster and the reminder DMs: background loops over coach services.

A post is sent exactly once: the pick is recorded before sending, the message goes
out with a nonce derived from the pick (`enforce_nonce`, so Discord drops a resend
after a crash), and the post is marked sent only after Discord accepted it.

On the server's first day of the week the post also carries the week before: in words,
and as a picture. The picture never costs the post: when it cannot be drawn the post goes
without it, and when the channel refuses files (servers that invited the bot before it
asked for *Attach Files*) the post is sent again without it and the owner is told once.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import date, timedelta
from typing import Awaitable, Callable

from bot import render
from bot.replies import Attachment, Reply
from coach.daily.rules import is_week_start
from coach.errors import CoachError, NotFound
from coach.results import DailyPick

log = logging.getLogger("coach.bot.daily")

# (channel_id, reply, nonce) -> the sent message id. Raises PermissionError when the
# bot may not post there, LookupError when the channel is gone.
Send = Callable[[int, Reply, str], Awaitable[int]]
NONCE_MAX = 25  # Discord keeps a message nonce of at most 25 characters


def post_nonce(pick: DailyPick) -> str:
    """The post's message nonce: the same on every retry of this pick, so with
    `enforce_nonce` Discord drops a resend after a crash instead of posting twice."""
    return f"daily-{pick.pick_id}"
# (guild_id, text) -> None: tell the server's admin something once.
Warn = Callable[[int, str], Awaitable[None]]
# (user_id, text) -> None
DirectMessage = Callable[[int, str], Awaitable[None]]
# (guild_id, first day) -> (the server's week, its picture or None): Handlers.week_picture, named by the adapter.
WeekPicture = Callable[[int, date], Awaitable[tuple[object, Attachment | None]]]


class DailyPoster:
    def __init__(self, coach, catalog, send: Send, warn: Warn | None = None, week: WeekPicture | None = None):
        self.coach, self.catalog, self.send, self.warn, self.week = coach, catalog, send, warn, week
        self._blocked: dict[int, object] = {}  # guild -> local date we gave up posting on
        self._told_no_files: set[int] = set()  # guilds whose owner heard about Attach Files

    async def post(self, due) -> int | None:
        """Send one due post; returns the message id, or None when it could not go out."""
        guild_id, day = due.schedule.guild_id, due.local_date
        if self._blocked.get(guild_id) == day:
            return None
        pick = await self.coach.daily.pick_daily(guild_id, day, due.schedule.track)  # recorded before sending
        if pick.sent:
            return pick.message_ids[0] if pick.message_ids else None
        try:
            yesterday = await self.coach.daily.daily_results(guild_id, day - timedelta(days=1))
        except NotFound:
            yesterday = None
        last_week, picture = None, None
        if self.week is not None and is_week_start(due.schedule, day):
            try:
                last_week, picture = await self.week(guild_id, day - timedelta(days=7))
            except Exception:  # the week is extra: it never costs the day's post
                log.exception("weekly picture skipped", extra={"guild": guild_id})
        reply = render.daily_post(pick, self.catalog.bites[pick.bite_id], yesterday, last_week)
        if picture is not None:
            reply = replace(reply, attachment=picture)
        try:
            message_id = await self._send(guild_id, due.schedule.channel_id, reply, post_nonce(pick))
        except (PermissionError, LookupError) as error:
            self._blocked[guild_id] = day
            log.warning("daily post blocked", extra={"guild": guild_id, "channel": due.schedule.channel_id,
                                                     "reason": str(error)})
            if self.warn is not None:
                await self._warn(guild_id, due.schedule.channel_id)
            return None
        await self.coach.daily.mark_daily_sent(guild_id, day, [message_id])
        log.info("daily post sent", extra={"guild": guild_id, "date": day.isoformat(), "message_id": message_id})
        return message_id

    async def _send(self, guild_id: int, channel_id: int, reply: Reply, nonce: str) -> int:
        """Send; a post refused for its picture goes again without it (same nonce: nothing
        was created), and the owner hears once that the picture needs Attach Files."""
        try:
            return await self.send(channel_id, reply, nonce)
        except PermissionError:
            if reply.attachment is None:
                raise
        log.warning("weekly picture refused; posting without it", extra={"guild": guild_id, "channel": channel_id})
        message_id = await self.send(channel_id, replace(reply, attachment=None), nonce)
        if self.warn is not None and guild_id not in self._told_no_files:
            self._told_no_files.add(guild_id)
            text = (f"This week's picture of how the server did could not be posted in <#{channel_id}>: I'm missing "
                    "the *Attach Files* permission there. The daily post went out without it.")
            try:
                await self.warn(guild_id, text)
            except Exception:
                log.warning("could not warn the admin", extra={"guild": guild_id}, exc_info=True)
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
        for due in await self.coach.daily.due_posts():
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
        for reminder in await self.coach.progress.reminders_due():
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
