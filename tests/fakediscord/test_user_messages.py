"""What members send reaches a gateway client as Discord sends it: voice messages with their
flag, duration and waveform; attachment options resolved in the interaction; MESSAGE_CREATE
gated by the intents the client identified with (checked with a raw websocket)."""

import asyncio
import base64
import json

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord.user_messages import DIRECT_MESSAGES, GUILD_MESSAGES, IS_VOICE_MESSAGE, MESSAGE_CONTENT


@pytest.fixture
async def fake():
    # The tests identify three times in a row on shard 0: no identify window (Discord's is 5 s).
    server = await FakeDiscord(identify_window_s=0).start()
    yield server
    await server.stop()


class Gateway:
    """A bare gateway client: identify with some intents, then collect dispatches."""

    def __init__(self, ws):
        self.ws = ws

    @classmethod
    async def connect(cls, http, fake, intents: int) -> "Gateway":
        ws = await http.ws_connect(fake.gateway_url)
        await ws.receive_json()  # HELLO
        await ws.send_json({"op": 2, "d": {"token": fake.token, "intents": intents, "properties": {}}})
        gateway = cls(ws)
        assert await gateway.next_event("READY") is not None, "identified (not refused with op 9)"
        return gateway

    async def next_event(self, name: str, timeout: float = 2.0) -> dict | None:
        try:
            while True:
                frame = json.loads((await self.ws.receive(timeout=timeout)).data)
                if frame.get("t") == name:
                    return frame["d"]
        except asyncio.TimeoutError:
            return None


async def test_a_dm_voice_message_arrives_with_its_flag_duration_waveform_and_bytes(fake):
    alice = fake.add_user("alice")
    async with aiohttp.ClientSession() as http:
        gateway = await Gateway.connect(http, fake, DIRECT_MESSAGES)
        sent = await fake.send_voice_message(alice, fake.dm_channel(alice), b"OggS" + bytes(500), duration=4.5)
        event = await gateway.next_event("MESSAGE_CREATE")
        assert event["id"] == sent["id"] and event["flags"] & IS_VOICE_MESSAGE and "guild_id" not in event
        (attachment,) = event["attachments"]
        assert attachment["content_type"] == "audio/ogg" and attachment["filename"] == "voice-message.ogg"
        assert attachment["duration_secs"] == 4.5 and 0 < len(base64.b64decode(attachment["waveform"])) <= 256
        async with http.get(attachment["url"]) as response:
            assert response.headers["Content-Type"] == "audio/ogg"
            assert await response.read() == b"OggS" + bytes(500)
        await gateway.ws.close()


async def test_intents_gate_message_create_as_discord_does(fake):
    alice, guild = fake.add_user("alice"), fake.add_guild()
    channel = guild["channels"][0]
    async with aiohttp.ClientSession() as http:
        guilds_only = await Gateway.connect(http, fake, 1)
        await fake.send_voice_message(alice, fake.dm_channel(alice), b"x" * 100, duration=1.0)
        assert await guilds_only.next_event("MESSAGE_CREATE", timeout=0.3) is None, "no DIRECT_MESSAGES: no DMs"
        await guilds_only.ws.close()

        no_content = await Gateway.connect(http, fake, 1 | GUILD_MESSAGES)
        await fake.send_voice_message(alice, channel, b"x" * 100, duration=1.0)
        event = await no_content.next_event("MESSAGE_CREATE")
        assert event["attachments"] == [] and event["content"] == "", "no MESSAGE_CONTENT: stripped"
        assert event["member"] and event["guild_id"] == guild["id"]
        await no_content.ws.close()

        with_content = await Gateway.connect(http, fake, 1 | GUILD_MESSAGES | MESSAGE_CONTENT)
        await fake.send_voice_message(alice, channel, b"x" * 100, duration=1.0)
        event = await with_content.next_event("MESSAGE_CREATE")
        assert event["attachments"][0]["duration_secs"] == 1.0
        await with_content.ws.close()
    assert fake.intents == 1 | GUILD_MESSAGES | MESSAGE_CONTENT


async def test_an_attachment_option_is_resolved_in_the_interaction(fake):
    guild, alice = fake.add_guild(), fake.add_user("alice")
    fake.global_commands = [{"id": "1", "name": "explain", "type": 1,
                             "options": [{"name": "topic", "type": 3}, {"name": "audio", "type": 11}]}]
    upload = fake.upload(b"not really audio", "answer.ogg")
    renamed = fake.upload(b"hello", "notes.txt")
    assert upload["content_type"] == "audio/ogg" and renamed["content_type"] == "text/plain", "typed by name"
    record = await fake.slash(alice, "explain", guild=guild, options={"topic": "kv cache", "audio": upload})
    data = record.payload["data"]
    assert {"name": "audio", "type": 11, "value": upload["id"]} in data["options"]
    resolved = data["resolved"]["attachments"][upload["id"]]
    assert resolved["url"] == upload["url"] and resolved["size"] == len(b"not really audio") and resolved["ephemeral"]


async def test_the_bots_reply_to_a_message_is_found_by_its_reference(fake):
    alice = fake.add_user("alice")
    dm = fake.dm_channel(alice)
    sent = await fake.send_message(alice, dm, "hello")
    async with aiohttp.ClientSession() as http:
        url = f"{fake.api_base}/channels/{dm['id']}/messages"
        async with http.post(url, json={"content": "hi", "message_reference": {"message_id": sent["id"]}}):
            pass
        async with http.post(f"{fake.api_base}/channels/{dm['id']}/typing") as typing:
            assert typing.status == 204
    reply = await fake.reply_to(sent, timeout=1)
    assert reply["content"] == "hi" and reply["type"] == 19
