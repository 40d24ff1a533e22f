"""Settings and logging for one run of the bot, whichever front end it serves (Discord or
the console). Apart from `bot/runner.py` so the console can use it without importing the
entry point that chooses the console."""

from __future__ import annotations

import logging

from coach.config import get_settings
from coach.logs import configure_logging


def configure_bot_logging(settings, stream=None, path=None) -> None:
    """The coach's logging (`coach.logs`), with discord.py's INFO chatter (gateway
    sessions, heartbeats, rate-limit notes) left out; its warnings still show."""
    configure_logging(settings, stream=stream, path=path)
    logging.getLogger("discord").setLevel(max(logging.WARNING, logging.getLogger().level))


def prepare(console: bool = False):
    """Settings and logging for a run. In the console, log lines go to a file under the
    data folder (`console.log`), never into the conversation."""
    settings = get_settings()
    if console:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        configure_bot_logging(settings, path=settings.data_dir / "console.log")
    else:
        configure_bot_logging(settings)
    return settings
