"""Progress: `/stats` with its pictures, the server's week, the leaderboard."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Awaitable, Callable, Mapping, Sequence

from bot.render.interview import with_interview_history
from bot.render import messages as render
from bot.render import texts
from bot.command_table import PERIODS, STATS_VIEWS
from bot.handlers.base import Actor, Capability, replies_to_errors
from bot.pictures import MapPicture, StatsPicture, WeekPicture
from bot.pictures.pool import PictureError
from bot.pictures.render import describe as describe_picture
from bot.render.replies import Attachment, Reply, notice
from bot.render.voice import with_delivery_history
from coach.voice.history import delivery_history

log = logging.getLogger("coach.bot")

# (guild_id, user_ids) -> {user_id: display name}: names only the adapter knows.
Names = Callable[[int, Sequence[int]], Awaitable[Mapping[int, str]]]


class ProgressHandlers(Capability):
    @replies_to_errors
    async def stats(self, actor: Actor, view: str = "progress", track: str | None = None) -> Reply:
        """`/stats`: the text summary with the progress picture beside it; `view:map`, the
        bite map of a track."""
        name = actor.name or "you"
        if view not in STATS_VIEWS:
            return notice(texts.not_a_choice("view", STATS_VIEWS), outcome="invalid")
        if view == "map":
            track = track or await self.member_track(actor) or self.default_track()
            refusal = self.unknown_track(track)
            if refusal:
                return refusal
            mapping = await self.coach.history.mastery_map(actor.user_id, track)
            return await self._with_picture(render.bite_map(mapping), MapPicture(name, mapping), actor)
        stats = await self.coach.progress.stats(actor.user_id, actor.guild_id)
        history = await self.coach.history.progress_history(actor.user_id)
        reply = with_delivery_history(render.stats(stats), await delivery_history(self.services.store, actor.user_id))
        reply = with_interview_history(reply, await self.coach.interviews.history(actor.user_id))
        return await self._with_picture(reply, StatsPicture(name, stats, history), actor)

    async def week_picture(self, guild_id: int, start, server: str, resolve_names: Names,
                           channel_id: int | None = None):
        """The server's week that begins on `start` and its picture (None when it could not be
        drawn): for a channel's daily post on the server's first day of the week (that channel's
        questions), and `coach stats --week` (the main schedule's)."""
        week = await self.coach.history.guild_week(guild_id, start, channel_id=channel_id)
        names = await resolve_names(guild_id, [row.user_id for row in week.leaders]) if week.leaders else {}
        return week, await self.picture(WeekPicture(server, week, dict(names)))

    async def server_week(self, actor: Actor, server: str, resolve_names: Names, start=None) -> Reply:
        """The server's last whole week (or the one beginning on `start`) as a reply."""
        week, attachment = await self.week_picture(actor.guild_id, start, server, resolve_names)
        reply = render.server_week(week)
        return replace(reply, attachment=attachment) if attachment else render.picture_missing(reply)

    async def picture(self, data) -> Attachment | None:
        """The picture as an attachment with its description; None when it could not be drawn
        (the reply then goes without it)."""
        try:
            png = await self.services.pictures.render(data)
        except PictureError as error:
            log.warning("picture left out", extra={"reason": str(error)})
            return None
        return Attachment(data.filename, png, describe_picture(data))

    async def _with_picture(self, reply: Reply, data, actor: Actor) -> Reply:
        if not actor.can_attach:
            return render.picture_missing(reply, texts.NO_ATTACHING)
        attachment = await self.picture(data)
        return replace(reply, attachment=attachment) if attachment else render.picture_missing(reply)

    @replies_to_errors
    async def leaderboard(self, actor: Actor, period: str = "week", names: dict | None = None) -> Reply:
        if period not in PERIODS:
            return notice(texts.not_a_choice("period", PERIODS), outcome="invalid")
        if not actor.guild_id:
            return notice(texts.LEADERBOARD_NEEDS_SERVER, outcome="invalid")
        rows = await self.coach.progress.leaderboard(actor.guild_id, period)
        return render.leaderboard(rows, period, names=names)
