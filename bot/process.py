"""Settings and logging for one run of the bot, whichever front end it serves (Discord or
the console). Apart from `bot/runner.py` so the console can use it without importing the
entry point that chooses the console."""

from __future__ import annotations

import logging

from coach.config import get_settings
from coach.logs import configure_logging


# discord.py warns at every start when PyNaCl or davey is missing (`Client.__init__`, logger
# "discord.client"): "voice will NOT be supported". That is voice *channels*; this bot joins
# none (a voice answer is an audio attachment the coach transcribes), so nothing the bot does
# is missing, and the lines only send an operator looking for a fault. These two messages,
# word for word, are left out; every other discord.py warning still shows. (If the bot ever
# joins voice channels, drop this filter: then the warnings mean what they say.)
VOICE_LIBRARY_WARNINGS = frozenset({
    "PyNaCl is not installed, voice will NOT be supported",
    "davey is not installed, voice will NOT be supported",
})


class VoiceLibraryWarnings(logging.Filter):
    """Drops discord.py's two "voice will NOT be supported" warnings (see above)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.WARNING and record.getMessage() in VOICE_LIBRARY_WARNINGS)


def configure_bot_logging(settings, stream=None, path=None) -> None:
    """The coach's logging (`coach.logs`), with discord.py's INFO chatter (gateway
    sessions, heartbeats, rate-limit notes) and its warnings about voice libraries the bot
    does not need left out; its other warnings still show."""
    configure_logging(settings, stream=stream, path=path)
    logging.getLogger("discord").setLevel(max(logging.WARNING, logging.getLogger().level))
    # On the logger that emits them: a logger's filters see only its own records, so this
    # one touches nothing but discord.client's (once, however often logging is configured).
    client = logging.getLogger("discord.client")
    if not any(isinstance(f, VoiceLibraryWarnings) for f in client.filters):
        client.addFilter(VoiceLibraryWarnings())


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
