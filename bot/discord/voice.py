"""Voice answers on Discord: the intents each way needs, a `discord.Attachment` as a Recording
(checked before its bytes are fetched), and voice messages (in DMs always; in server channels
when VOICE_IN_CHANNELS turns on the Message Content intent).

Which way needs which intent (the README says the same):
- `/explain … audio:` (a slash-command attachment option): none beyond `guilds`.
- a voice message in a DM: `dm_messages` (not privileged; DMs carry their attachments).
- a voice message in a server channel: `guild_messages` and `message_content` (privileged: free
  below 100 servers, reviewed by Discord above), else Discord strips the attachments.
"""

from __future__ import annotations

import contextlib
import logging
import time

import discord

from bot.render.replies import notice
from bot.discord.views import message_kwargs
from bot.handlers.voice import DownloadFailed, Recording

log = logging.getLogger("coach.bot.voice")
SORRY = "Something went wrong on my side while I listened — please send it again."


def intents(settings) -> discord.Intents:
    wanted = discord.Intents(guilds=True, dm_messages=True)
    if settings.voice_in_channels:
        wanted.guild_messages = True
        wanted.message_content = True
    return wanted


def recording_of(attachment: discord.Attachment) -> Recording:
    """Name, size, content type and (for a voice message) duration come with the attachment;
    the bytes are fetched only when those pass."""

    async def fetch() -> bytes:
        try:
            return await attachment.read()
        except discord.HTTPException as error:
            raise DownloadFailed(f"HTTP {error.status}") from None

    return Recording(attachment.filename, attachment.size, attachment.content_type, attachment.duration, fetch)


def recording_attachment(message: discord.Message, *, in_dm: bool) -> discord.Attachment | None:
    """The voice message's recording; in a DM an attached audio file counts too."""
    for attachment in message.attachments:
        if attachment.is_voice_message():
            return attachment
    if in_dm:
        return next((a for a in message.attachments if (a.content_type or "").startswith("audio/")), None)
    return None


@contextlib.asynccontextmanager
async def typing(channel):
    """"Coach is typing…" while the block runs; a channel that refuses it changes nothing."""
    indicator = channel.typing()
    try:
        await indicator.__aenter__()
    except discord.HTTPException:
        indicator = None
    try:
        yield
    finally:
        if indicator is not None:
            await indicator.__aexit__(None, None, None)


class VoiceMessages:
    """`on_message`: a member's voice message becomes a transcript reply (or is left alone)."""

    def __init__(self, handlers, settings):
        self.handlers = handlers
        self.settings = settings

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot:
            return
        in_dm = message.guild is None
        if not in_dm and not self.settings.voice_in_channels:
            return
        attachment = recording_attachment(message, in_dm=in_dm)
        if attachment is None:
            return
        from bot.handlers import Actor

        actor = Actor(user_id=message.author.id, guild_id=message.guild.id if message.guild else 0,
                      name=message.author.display_name, request_id=str(message.id), channel_id=message.channel.id)
        started = time.perf_counter()
        try:
            async with typing(message.channel):  # transcribing takes seconds: show that it is under way
                reply = await self.handlers.voice.voice_message(actor, recording_of(attachment), in_dm=in_dm)
        except Exception:
            log.exception("voice message failed")
            reply = notice(SORRY, outcome="error")
        if reply is None:  # a voice message in a channel that answers no prompt: not for the coach
            return
        kwargs = {k: v for k, v in message_kwargs(reply).items() if v is not None}
        try:
            await message.reply(**kwargs, mention_author=False)
        except discord.HTTPException as error:
            log.warning("voice reply not sent", extra={"status": error.status, "code": error.code})
        log.info("voice message", extra={"user": actor.user_id, "guild": actor.guild_id, "dm": in_dm,
                                         "outcome": reply.outcome,
                                         "total_ms": round((time.perf_counter() - started) * 1000, 1)})
