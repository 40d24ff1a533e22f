"""The server's daily post: its schedule (admins), a preview, and members' answers."""

from __future__ import annotations

from dataclasses import replace

from bot.render import messages as render
from bot.render import texts
from bot.handlers.base import Actor, Capability, admin_only, replies_to_errors
from bot.render.replies import Reply, notice
from coach.daily.rules import next_post_time, parse_weekday
from coach.errors import InvalidRequest
from coach.timeutil import local_date


class DailyHandlers(Capability):
    @admin_only
    @replies_to_errors
    async def daily_set(self, actor: Actor, channel_id: int, time_text: str, timezone: str,
                        track: str | None = None, week_starts: str | None = None) -> Reply:
        """`week_starts`: the server's first day of the week (the weekly picture's day); by
        default the one usual for the server's locale, or what it was."""
        try:
            week_start = parse_weekday(week_starts) if week_starts else None
        except ValueError as error:
            raise InvalidRequest(str(error)) from None
        schedule = await self.coach.daily.set_schedule(actor.guild_id, channel_id, time_text, timezone,
                                                       track or self.default_track(), week_start=week_start,
                                                       locale=actor.locale or None)
        return render.schedule(schedule, next_post=next_post_time(schedule, self.coach.now()))

    @admin_only
    async def daily_off(self, actor: Actor, channel_id: int | None = None) -> Reply:
        """One channel's post, or with no channel every post of the server."""
        stopped = await self.coach.daily.disable_schedule(actor.guild_id, channel_id)
        if not stopped:
            return notice(texts.DAILY_WAS_OFF, outcome="schedule_off")
        return notice(texts.daily_off(channel_id, stopped), outcome="schedule_off")

    @admin_only
    @replies_to_errors
    async def daily_preview(self, actor: Actor, channel_id: int | None = None) -> Reply:
        """What today's post looks like in the channel named, else in this channel, else in the
        server's main schedule's channel (the pick is the real one; nothing is sent)."""
        schedule = await self.coach.daily.get_schedule(actor.guild_id, channel_id or actor.channel_id)
        if schedule is None and channel_id:
            return notice(texts.no_daily_in(channel_id), outcome="invalid")
        schedule = schedule or await self.coach.daily.get_schedule(actor.guild_id)
        track = schedule.track if schedule else self.default_track()
        day = local_date(self.coach.now(), schedule.timezone if schedule else "UTC")
        pick = await self.coach.daily.pick_daily(actor.guild_id, day, track,
                                                 channel_id=schedule.channel_id if schedule else 0)
        post = render.daily_post(pick, self.catalog.bites[pick.bite_id])
        intro = texts.PREVIEW.format(schedule=render.schedule(schedule).content)
        return replace(post, content=intro, ephemeral=True, outcome="preview")

    async def daily_answer(self, actor: Actor, day, choice: int) -> Reply:
        if not actor.guild_id:
            return notice(texts.DAILY_ANSWERED_IN_SERVER, outcome="invalid")
        # The post's channel is where its button was pressed: each channel has its own post.
        result = await self.coach.daily.record_daily_answer(actor.guild_id, day, actor.user_id, choice,
                                                            channel_id=actor.channel_id)
        return render.daily_answered(result)
