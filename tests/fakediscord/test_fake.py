"""The fake Discord enforces what Discord enforces (checked with plain HTTP)."""

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord, payloads


@pytest.fixture
async def world():
    fake = await FakeDiscord().start()
    guild = fake.add_guild()
    fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
    async with aiohttp.ClientSession() as http:
        yield fake, guild, http
    await fake.stop()


async def call(http, method, url, body=None):
    async with http.request(method, url, json=body) as response:
        return response.status, response.headers, await response.json(content_type=None) if response.status != 204 else None


async def interaction(fake, guild):
    return await fake.slash(fake.add_user("u"), "ping", guild=guild)


async def test_one_initial_response_and_the_three_second_rule(world):
    fake, guild, http = world
    record = await interaction(fake, guild)
    url = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
    status, headers, _ = await call(http, "POST", url, {"type": 4, "data": {"content": "hi"}})
    assert status == 200 and headers["Content-Type"] == "application/json"
    status, _, body = await call(http, "POST", url, {"type": 4, "data": {"content": "again"}})
    assert (status, body["code"]) == (400, 40060)

    late = await interaction(fake, guild)
    fake.advance(3.5)
    status, _, body = await call(http, "POST", f"{fake.api_base}/interactions/{late.id}/{late.token}/callback",
                                 {"type": 5})
    assert (status, body["code"]) == (404, 10062)


async def test_limits_are_refused_with_400(world):
    fake, guild, http = world
    too_long_id = {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": "x" * 101}]}
    bad = [
        {"type": 4, "data": {"content": "x" * 2001}},
        {"type": 4, "data": {"embeds": [{"description": "x" * 4097}]}},
        {"type": 4, "data": {"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}},
        {"type": 4, "data": {"embeds": [{"title": "t", "description": "x" * 4000,
                                         "fields": [{"name": "n", "value": "v" * 1000}] * 3}]}},
        {"type": 4, "data": {"components": [too_long_id]}},
        {"type": 4, "data": {"components": [{"type": 1, "components": [
            {"type": 2, "style": 1, "label": "x", "custom_id": f"b{i}"} for i in range(6)]}]}},
        {"type": 9, "data": {"title": "x" * 46, "custom_id": "m:-", "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": "answer", "label": "a", "style": 2}]}]}},
    ]
    for body in bad:
        record = await interaction(fake, guild)
        status, _, reply = await call(http, "POST", f"{fake.api_base}/interactions/{record.id}/{record.token}/callback",
                                      body)
        assert (status, reply["code"]) == (400, 50035), body
        assert record.rejected and not record.callbacks


async def test_token_expires_after_fifteen_minutes(world):
    fake, guild, http = world
    record = await interaction(fake, guild)
    await call(http, "POST", f"{fake.api_base}/interactions/{record.id}/{record.token}/callback", {"type": 5})
    followup = f"{fake.api_base}/webhooks/{fake.app_id}/{record.token}"
    assert (await call(http, "POST", followup, {"content": "in time"}))[0] == 200
    fake.advance(15 * 60 + 1)
    status, _, body = await call(http, "POST", followup, {"content": "too late"})
    assert (status, body["code"]) == (401, 50027)


async def test_nonce_deduplication_only_when_enforced(world):
    fake, guild, http = world
    url = f"{fake.api_base}/channels/{guild['channels'][0]['id']}/messages"
    first = (await call(http, "POST", url, {"content": "a", "nonce": "n1", "enforce_nonce": True}))[2]
    again = (await call(http, "POST", url, {"content": "a", "nonce": "n1", "enforce_nonce": True}))[2]
    loose = (await call(http, "POST", url, {"content": "a", "nonce": "n1"}))[2]
    assert first["id"] == again["id"] != loose["id"]


async def test_injected_faults_and_forbidden_channels(world):
    fake, guild, http = world
    channel_id = guild["channels"][0]["id"]
    fake.inject(429, path="/users/@me$", retry_after=0.25)
    status, headers, body = await call(http, "GET", f"{fake.api_base}/users/@me")
    assert status == 429 and headers["Via"] and body["retry_after"] == 0.25
    assert (await call(http, "GET", f"{fake.api_base}/users/@me"))[0] == 200, "only as many times as asked"
    fake.forbid_channel(channel_id)
    status, _, body = await call(http, "POST", f"{fake.api_base}/channels/{channel_id}/messages", {"content": "x"})
    assert (status, body["code"]) == (403, 50013)
    assert [r.status for r in fake.requests] == [429, 200, 403]


def test_snowflakes_are_unique_and_ordered():
    ids = [payloads.snowflake() for _ in range(1000)]
    assert ids == sorted(ids) and len(set(ids)) == 1000


async def test_control_api_of_the_standalone_fake():
    from tests.fakediscord.__main__ import serve

    fake, guilds = await serve(guild_count=2)
    fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
    try:
        async with aiohttp.ClientSession() as http:
            status, _, pushed = await call(http, "POST", f"{fake.base_url}/_fake/slash",
                                           {"user": "alice", "guild": 1, "name": "ping"})
            assert status == 200
            record = fake.interactions[pushed["id"]]
            assert record.payload["guild_id"] == guilds[1]["id"]
            url = f"{fake.api_base}/interactions/{record.id}/{record.token}/callback"
            await call(http, "POST", url, {"type": 4, "data": {"content": "pong"}})
            _, _, seen = await call(http, "GET", f"{fake.base_url}/_fake/interactions/{pushed['id']}")
            assert seen["callbacks"][0]["type"] == 4 and seen["original"]["content"] == "pong"
            _, _, stats = await call(http, "GET", f"{fake.base_url}/_fake/stats")
            assert stats["interactions"] == stats["acknowledged"] == 1
    finally:
        await fake.stop()
