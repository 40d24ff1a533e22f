"""The types the input tables (bot/actions.py, bot/command_table.py) and the capabilities
name without importing the handlers: who acted, and the hub of handlers they call. Naming
`bot.handlers.Handlers` there would make the tables and the handlers import each other;
`Handlers` is the one implementation of `Hub`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal, Protocol

from bot.render.replies import Reply

Entry = Callable[..., Awaitable[Reply]]


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
    front_end: Literal["discord", "console"] = "discord"  # which front end to word replies for (/help)


class Hub(Protocol):
    services: Any
    coach: Any
    catalog: Any
    # the capabilities (bot/handlers/*.py)
    quizzes: Any
    explaining: Any
    progress: Any
    account: Any
    daily: Any
    voice: Any
    # the entry points the command table calls
    quiz: Entry
    review: Entry
    bite: Entry
    explain: Entry
    stats: Entry
    leaderboard: Entry
    settings: Entry
    forget: Entry
    help: Entry
    daily_set: Entry
    daily_off: Entry
    daily_preview: Entry
