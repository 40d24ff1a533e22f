"""The daily poster and the reminder DMs: background loops over coach services.

A post is sent exactly once, by one process of however many run: the pick is recorded
before sending; the process claims the post (`coach.daily.claims`: a lease row before
sending, the message id after), so a second process skips a post another is sending; the
message goes out with a nonce derived from the pick (`enforce_nonce`, so Discord drops a
resend after a crash); and the post is marked sent only after Discord accepted it. A
process that takes over a claim whose holder died before recording a message id looks in
the channel for the post before sending it again.

On the server's first day of the week the post also carries the week before: in words,
and as a picture. The picture never costs the post: when it cannot be drawn the post goes
without it, and when the channel refuses files (servers that invited the bot before it
asked for *Attach Files*) the post is sent again without it and the owner is told (at
most once a month). A channel that refuses the post is left alone for the rest of the
day and the owner is told once. Both notices are claimed in the database, so only one
process sends each.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import date, timedelta
from typing import Awaitable, Callable

from bot.render import messages as render
from bot.render.interview import lapsed_note
from bot.render.replies import Attachment, Reply
from coach.daily.rules import is_week_start
from coach.daily.claims import DailyPostClaims
from coach.errors import CoachError, NotFound
from coach.interview.flow import InterviewFlow
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
# (guild_id, channel_id, first day) -> (the channel's week, its picture or None): Handlers.week_picture,
# named by the adapter.
WeekPicture = Callable[[int, int, date], Awaitable[tuple[object, Attachment | None]]]
# (channel_id, pick) -> the id of the pick's post if it is in the channel, else None.
FindPost = Callable[[int, object], Awaitable[int | None]]

NO_FILES_NOTICE_EVERY = timedelta(days=30)


class DailyPoster:
    # Whether this process posts for a guild: the adapter sets it to "its shard is mine".
    serves: Callable[[int], bool] = staticmethod(lambda guild_id: True)

    def __init__(self, coach, catalog, send: Send, warn: Warn | None = None, week: WeekPicture | None = None, *,
                 claims: DailyPostClaims, holder: str, find_post: FindPost | None = None):
        """`claims`: who sends which post, in the database; `holder`: this process's name
        there (stable across its restarts); `find_post`: looks for an already sent post."""
        self.coach, self.catalog, self.send, self.warn, self.week = coach, catalog, send, warn, week
        self.claims, self.holder, self.find_post = claims, holder, find_post

    async def post(self, due) -> int | None:
        """Send one due post; returns the message id, or None when it did not go out (sent
        by another process, being sent by one now, or refused by the channel)."""
        guild_id, day, channel_id = due.schedule.guild_id, due.local_date, due.schedule.channel_id
        where = dict(channel_id=channel_id)
        pick = await self.coach.daily.pick_daily(guild_id, day, due.schedule.track, **where)  # recorded before sending
        if pick.sent:
            return pick.message_ids[0] if pick.message_ids else None
        claim = await self.claims.claim(guild_id, day, self.holder, **where)
        if claim.status == "sent":  # recorded by a process that died before marking the pick
            await self.coach.daily.mark_daily_sent(guild_id, day, [claim.message_id], **where)
            return None
        if claim.status != "granted":
            return None
        if claim.check_channel:
            found = await self._already_posted(channel_id, pick)
            if found is not None:
                return await self._record(guild_id, channel_id, day, found, "found in the channel")
        try:
            yesterday = await self.coach.daily.daily_results(guild_id, day - timedelta(days=1), **where)
        except NotFound:
            yesterday = None
        last_week, picture = None, None
        if self.week is not None and is_week_start(due.schedule, day):
            try:
                last_week, picture = await self.week(guild_id, channel_id, day - timedelta(days=7))
            except Exception:  # the week is extra: it never costs the day's post
                log.exception("weekly picture skipped", extra={"guild": guild_id})
        reply = render.daily_post(pick, self.catalog.bites[pick.bite_id], yesterday, last_week)
        if picture is not None:
            reply = replace(reply, attachment=picture)
        try:
            message_id = await self._send(guild_id, channel_id, reply, post_nonce(pick))
        except (PermissionError, LookupError) as error:
            first = await self.claims.give_up(guild_id, day, **where)
            log.warning("daily post blocked", extra={"guild": guild_id, "channel": channel_id, "reason": str(error)})
            if first and self.warn is not None:
                await self._warn(guild_id, channel_id)
            return None
        return await self._record(guild_id, channel_id, day, message_id, "sent")

    async def _record(self, guild_id: int, channel_id: int, day: date, message_id: int, how: str) -> int:
        await self.coach.daily.mark_daily_sent(guild_id, day, [message_id], channel_id=channel_id)
        await self.claims.record_sent(guild_id, day, self.holder, message_id, channel_id=channel_id)
        log.info("daily post sent", extra={"guild": guild_id, "channel": channel_id, "date": day.isoformat(),
                                           "message_id": message_id, "how": how})
        return message_id

    async def _already_posted(self, channel_id: int, pick) -> int | None:
        """The post an earlier holder may have sent before it died. If the channel cannot be
        read, None: the send that follows carries the same nonce, which Discord drops if
        the first one landed within its dedup window."""
        if self.find_post is None:
            return None
        try:
            return await self.find_post(channel_id, pick)
        except Exception as error:  # reading the channel is a precaution, never a reason to skip the post
            log.warning("could not look for an earlier daily post", extra={"channel": channel_id,
                                                                           "reason": type(error).__name__})
            return None

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
        if self.warn is not None and await self.claims.first_notice(guild_id, "no_attach_files",
                                                                     NO_FILES_NOTICE_EVERY):
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
            if not self.serves(due.schedule.guild_id):
                continue
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
        """Reviews due or a streak at risk; and the outcome of an interview that ran out of time
        (a member without reminders sees it with their next command instead)."""
        messages = [(r.user_id, self.text(r)) for r in await self.coach.progress.reminders_due()]
        flow = InterviewFlow(self.coach, None)
        messages += [(state.user_id, lapsed_note(flow.scorecard(state)))
                     for state in await self.coach.interviews.lapse_for_reminders()]
        sent = 0
        for user_id, text in messages:
            try:
                await self.dm(user_id, text)
                sent += 1
            except Exception:  # closed DMs are common; never let one user stop the rest
                log.info("reminder not delivered", extra={"user": user_id})
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
