"""`coach run`, the process entry: the bot on Discord when DISCORD_TOKEN is set, otherwise
the console."""

from __future__ import annotations

import asyncio

from bot.process import prepare
from coach.config import get_settings


def run_command(args) -> int:
    settings = get_settings()
    if settings.discord_token is None:
        from bot.console.chat import chat_command

        return chat_command(args)
    from bot.discord.client import run_discord

    prepare()
    return asyncio.run(run_discord(settings))
