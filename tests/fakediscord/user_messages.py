"""What members send to the fake Discord: files for a slash command's attachment option,
messages, and voice messages, delivered to the bot as Discord delivers them.

- An attachment option carries the attachment id as its value and the attachment itself
  in the interaction's `data.resolved.attachments` (uploaded first, served at its `url`).
- A voice message is a message with the flag IS_VOICE_MESSAGE (1 << 13) and one
  `audio/ogg` attachment named `voice-message.ogg` that carries `duration_secs` (what the
  client measured) and `waveform` (base64 of up to 256 one-byte amplitudes).
- MESSAGE_CREATE reaches the bot only with the intent for it: GUILD_MESSAGES (1 << 9) in a
  server, DIRECT_MESSAGES (1 << 12) in a DM. In a server, without MESSAGE_CONTENT (1 << 15)
  the content, attachments, embeds and components arrive empty (DMs are exempt), as on
  Discord.
- Content types come from the file name, as Discord guesses them: a text file renamed
  `.ogg` arrives as `audio/ogg`.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
from datetime import datetime, timezone

from tests.fakediscord import payloads

IS_VOICE_MESSAGE = 1 << 13
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12
MESSAGE_CONTENT = 1 << 15
WAVEFORM_SAMPLES = 256
_CONTENT_GATED = ("content", "attachments", "embeds", "components")
mimetypes.add_type("audio/ogg", ".ogg")
mimetypes.add_type("audio/ogg", ".opus")


def content_type_for(filename: str) -> str | None:
    return mimetypes.guess_type(filename)[0]


def waveform_of(data: bytes, samples: int = WAVEFORM_SAMPLES) -> str:
    """A stand-in waveform: one byte per slice of the file (the client draws it; no one reads it)."""
    step = max(1, len(data) // samples)
    return base64.b64encode(bytes(data[i] for i in range(0, min(len(data), step * samples), step))).decode()


class UserMessages:
    """Mixed into FakeDiscord: needs `attachment_bytes`, `attachment_types`, `channels`,
    `messages`, `intents`, `base_url`, `dispatch` and `bot_user`."""

    def upload(self, data: bytes, filename: str, *, content_type: str | None = "guess",
               duration: float | None = None, voice: bool = False) -> dict:
        """Store a file as Discord's CDN would and return its attachment object.
        `content_type="guess"` takes it from the file name; None sends none."""
        attachment_id = payloads.snowflake()
        self.attachment_bytes[attachment_id] = data
        kind = content_type_for(filename) if content_type == "guess" else content_type
        url = f"{self.base_url}/attachments/{attachment_id}/{filename}"
        attachment = {"id": str(attachment_id), "filename": filename, "size": len(data), "url": url,
                      "proxy_url": url}
        if kind:
            attachment["content_type"] = kind
            self.attachment_types[attachment_id] = kind
        if voice:
            attachment["duration_secs"] = float(duration if duration is not None else 0.0)
            attachment["waveform"] = waveform_of(data)
        return attachment

    def dm_channel(self, user: dict) -> dict:
        """The DM channel between `user` and the bot (the same one the bot opens)."""
        for channel in self.channels.values():
            if channel["type"] == 1 and channel["recipients"][0]["id"] == user["id"]:
                return channel
        channel = payloads.dm_channel(payloads.snowflake(), user)
        self.channels[int(channel["id"])] = channel
        return channel

    async def send_message(self, author: dict, channel: dict, content: str = "", *,
                           attachments: list[dict] | None = None, flags: int = 0) -> dict:
        """A member posts a message; the bot receives it if its intents allow. Returns the
        stored message (as the channel holds it, whatever the bot was shown)."""
        message = {
            "id": str(payloads.snowflake()),
            "channel_id": channel["id"],
            "author": author,
            "content": content,
            "timestamp": datetime.now(timezone.utc).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": attachments or [],
            "embeds": [],
            "components": [],
            "pinned": False,
            "type": 0,
            "flags": flags,
        }
        if channel.get("guild_id"):
            message["guild_id"] = channel["guild_id"]
            member = payloads.member(author)
            member.pop("user")
            message["member"] = member
        self.messages[int(message["id"])] = message
        shown = self.as_delivered(message)
        if shown is not None:
            await self.dispatch("MESSAGE_CREATE", shown)
        return message

    async def send_voice_message(self, author: dict, channel: dict, data: bytes, *,
                                 duration: float, filename: str = "voice-message.ogg") -> dict:
        """A voice message: recorded in the client, which reports its duration."""
        attachment = self.upload(data, filename, content_type="audio/ogg", duration=duration, voice=True)
        return await self.send_message(author, channel, attachments=[attachment], flags=IS_VOICE_MESSAGE)

    def as_delivered(self, message: dict) -> dict | None:
        """The MESSAGE_CREATE the bot gets for `message` under its intents, or None."""
        in_guild = bool(message.get("guild_id"))
        if not self.intents & (GUILD_MESSAGES if in_guild else DIRECT_MESSAGES):
            return None
        if in_guild and not self.intents & MESSAGE_CONTENT:
            return {**message, **{key: "" if key == "content" else [] for key in _CONTENT_GATED}}
        return dict(message)

    def replies_to(self, message: dict) -> list[dict]:
        """The bot's replies to a member's message, oldest first."""
        return [m for m in self.messages.values()
                if (m.get("message_reference") or {}).get("message_id") == message["id"]]

    async def reply_to(self, message: dict, timeout: float = 60.0) -> dict:
        """Wait for the bot's reply to `message` (a member's message gets no interaction to await)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.replies_to(message):
            if loop.time() > deadline:
                raise TimeoutError(f"no reply to message {message['id']} within {timeout} s")
            await asyncio.sleep(0.05)
        return self.replies_to(message)[0]
