"""What every handler shares: who acted, the services, and the two guards that turn
domain errors and missing permissions into replies in one place."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar

from bot import texts
from bot.replies import Reply, notice
from coach.errors import CoachError, NotFound, NotOwner

if TYPE_CHECKING:
    from bot.handlers import Handlers

Work = TypeVar("Work", bound=Callable[..., Awaitable[Reply]])


@dataclass(frozen=True)
class Actor:
    user_id: int
    guild_id: int = 0  # 0: a DM or the console
    name: str = ""
    can_manage_guild: bool = False
    request_id: str = ""  # the interaction id: makes a retried grading idempotent
    locale: str = ""  # the server's preferred locale (Discord), e.g. "en-US"
    can_attach: bool = True  # whether the bot may attach files where it answers
    channel_id: int = 0  # where it happened (a voice message answers an /explain of that channel)


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

    def __init__(self, hub: "Handlers"):
        self.hub = hub
        self.services = hub.services
        self.coach = hub.coach
        self.catalog = hub.catalog

    def default_track(self) -> str:
        return next(iter(self.catalog.tracks))

    def unknown_track(self, track: str) -> Reply | None:
        if track in self.catalog.tracks:
            return None
        return notice(texts.unknown_track(track, self.catalog.tracks), outcome="invalid")
