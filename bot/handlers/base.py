"""What every handler shares: who acted, the services, and the two guards that turn
domain errors and missing permissions into replies in one place."""

from __future__ import annotations

import functools
from typing import Awaitable, Callable, TypeVar

from bot.protocols import Actor, Hub
from bot.render import texts
from bot.render.replies import Reply, notice
from coach.errors import CoachError, NotFound, NotOwner

Work = TypeVar("Work", bound=Callable[..., Awaitable[Reply]])


def error_reply(error: CoachError) -> Reply:
    """The one reply for a domain error, whichever handler raised it."""
    if isinstance(error, (NotFound, NotOwner)):
        return notice(texts.NOT_AVAILABLE, outcome="refused")
    return notice(texts.invalid(error), outcome="invalid")


def replies_to_errors(work: Work) -> Work:
    """A handler whose domain errors (coach.errors) come back as notices."""
    @functools.wraps(work)
    async def wrapper(*args, **kwargs) -> Reply:
        try:
            return await work(*args, **kwargs)
        except CoachError as error:
            return error_reply(error)
    return wrapper  # type: ignore[return-value]


def admin_only(work: Work) -> Work:
    """A server setting: only in a server, only for members who may manage it."""
    @functools.wraps(work)
    async def wrapper(self, actor: Actor, *args, **kwargs) -> Reply:
        if not actor.guild_id:
            return notice(texts.DAILY_NEEDS_SERVER, outcome="invalid")
        if not actor.can_manage_guild:
            return notice(texts.DAILY_ADMINS_ONLY, outcome="refused")
        return await work(self, actor, *args, **kwargs)
    return wrapper  # type: ignore[return-value]


class Capability:
    """One capability's handlers, reaching the services (and the others) through the hub."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.services = hub.services
        self.coach = hub.coach
        self.catalog = hub.catalog

    def default_track(self) -> str:
        return next(iter(self.catalog.tracks))

    async def member_track(self, actor: Actor) -> str | None:
        """The track a member means when they name none: their own (`/settings track:`), else
        the server's daily track (its main schedule's, while it posts); None when neither is."""
        settings = await self.coach.account.get_settings(actor.user_id)
        if settings.preferred_track in self.catalog.tracks:
            return settings.preferred_track
        schedule = await self.coach.daily.get_schedule(actor.guild_id) if actor.guild_id else None
        on = schedule is not None and schedule.enabled and schedule.track in self.catalog.tracks
        return schedule.track if on else None

    def unknown_track(self, track: str) -> Reply | None:
        if track in self.catalog.tracks:
            return None
        return notice(texts.unknown_track(track, self.catalog.tracks), outcome="invalid")
