"""The fake's gateway serves shards as Discord does (checked with plain websockets)."""

import asyncio
import json

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord, payloads


@pytest.fixture
async def http():
    async with aiohttp.ClientSession() as session:
        yield session


async def start(**limits) -> FakeDiscord:
    fake = await FakeDiscord(**limits).start()
    fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
    return fake


class Session:
    """One raw gateway connection."""

    def __init__(self, ws):
        self.ws, self.events = ws, []

    async def next(self, timeout: float = 2.0) -> dict:
        msg = await asyncio.wait_for(self.ws.receive(), timeout)
        frame = json.loads(msg.data)
        if frame.get("t"):
            self.events.append((frame["t"], frame["d"]))
        return frame

    async def events_until_quiet(self, quiet_s: float = 0.2) -> list[tuple[str, dict]]:
        try:
            while True:
                await self.next(quiet_s)
        except TimeoutError:
            return self.events


async def identify(http, fake, shard: list[int] | None) -> tuple[Session, dict]:
    session = Session(await http.ws_connect(fake.gateway_url))
    assert (await session.next())["op"] == 10  # HELLO
    data = {"token": fake.token, "intents": 1, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await session.ws.send_json({"op": 2, "d": data})
    return session, await session.next()


async def test_gateway_bot_reports_shards_and_the_session_start_limit(http):
    fake = await start(shard_count=4, max_concurrency=2, total=1000, remaining=3)
    try:
        async with http.get(f"{fake.api_base}/gateway/bot") as response:
            body = await response.json()
        assert body["shards"] == 4
        assert body["session_start_limit"] == {"total": 1000, "remaining": 3, "reset_after": 14_400_000,
                                               "max_concurrency": 2}
        session, ready = await identify(http, fake, [1, 4])
        assert ready["t"] == "READY" and ready["d"]["shard"] == [1, 4]
        async with http.get(f"{fake.api_base}/gateway/bot") as response:
            assert (await response.json())["session_start_limit"]["remaining"] == 2, "an identify spends one start"
        await session.ws.close()
    finally:
        await fake.stop()


async def test_each_guild_and_its_interactions_reach_only_their_shard(http):
    fake = await start(shard_count=2, max_concurrency=2)
    try:
        on_zero, on_one = fake.add_guild("zero", shard=(0, 2)), fake.add_guild("one", shard=(1, 2))
        first, ready_zero = await identify(http, fake, [0, 2])
        second, ready_one = await identify(http, fake, [1, 2])
        assert [g["id"] for g in ready_zero["d"]["guilds"]] == [on_zero["id"]]
        assert [g["id"] for g in ready_one["d"]["guilds"]] == [on_one["id"]]
        await first.events_until_quiet()
        await second.events_until_quiet()

        user = fake.add_user("u")
        to_one = await fake.slash(user, "ping", guild=on_one)
        direct = await fake.slash(user, "ping")  # a DM: shard 0
        assert to_one.delivered and direct.delivered
        got_zero = [d["id"] for t, d in await first.events_until_quiet() if t == "INTERACTION_CREATE"]
        got_one = [d["id"] for t, d in await second.events_until_quiet() if t == "INTERACTION_CREATE"]
        assert got_one == [to_one.id] and got_zero == [direct.id]

        await second.ws.close()
        await asyncio.sleep(0.1)
        lost = await fake.slash(user, "ping", guild=on_one)
        assert not lost.delivered, "with shard 1 down nobody gets its guild's interactions"
        assert fake.gateway.overlaps == []
        await first.ws.close()
    finally:
        await fake.stop()


async def test_an_event_written_as_its_client_dies_is_lost_not_delivered(http):
    """A SIGKILLed bot's connection resets under the fake's write: that session did not get the
    event, and an interaction no other session got is not delivered (the user sees it fail)."""
    fake = await start(identify_window_s=0.05)
    try:
        guild, user = fake.add_guild(), fake.add_user("u")
        first, _ = await identify(http, fake, [0, 1])
        await asyncio.sleep(0.1)
        second, _ = await identify(http, fake, [0, 1])  # two sessions on shard 0 (an overlap, allowed)
        await first.events_until_quiet()
        await second.events_until_quiet()
        dying, living = fake.gateway.sessions_on(0)

        # The connection is reset; the fake's reader has not noticed yet (no await in between).
        dying.ws._writer.transport.abort()
        half = await fake.slash(user, "ping", guild=guild)
        assert half.delivered, "the other session got it"
        assert fake.gateway.lost == [("INTERACTION_CREATE", int(guild["id"]), 0)]
        got = [d["id"] for t, d in await second.events_until_quiet() if t == "INTERACTION_CREATE"]
        assert got == [half.id]

        living.ws._writer.transport.abort()
        gone = await fake.slash(user, "ping", guild=guild)
        assert not gone.delivered, "written to a dead client only: nobody got it"
        assert fake.gateway.lost[1:] == [("INTERACTION_CREATE", int(guild["id"]), 0)]
        assert fake.gateway.dropped == [], "a session was there to take it: lost, not dropped"
    finally:
        await fake.stop()


async def test_identifies_faster_than_the_bucket_allows_get_invalid_session(http):
    fake = await start(shard_count=4, max_concurrency=2, identify_window_s=0.5)
    try:
        a, ready = await identify(http, fake, [0, 4])
        b, ready_b = await identify(http, fake, [1, 4])  # bucket 1: its own window
        c, refused = await identify(http, fake, [2, 4])  # bucket 0 again, too soon
        assert ready["t"] == "READY" and ready_b["t"] == "READY"
        assert refused == {"op": 9, "d": False}
        assert [i.accepted for i in fake.gateway.identifies] == [True, True, False]
        assert "bucket 0" in fake.gateway.identifies[-1].reason
        await asyncio.sleep(0.5)
        await c.ws.send_json({"op": 2, "d": {"token": fake.token, "shard": [2, 4], "properties": {}}})
        assert (await c.next())["t"] == "READY", "after the window the same bucket may identify again"
        for s in (a, b, c):
            await s.ws.close()
    finally:
        await fake.stop()


async def test_a_second_session_on_a_shard_is_recorded_and_resume_keeps_the_shard(http):
    fake = await start(shard_count=2, max_concurrency=2, identify_window_s=0.05)
    try:
        guild = fake.add_guild(shard=(1, 2))
        first, ready = await identify(http, fake, [1, 2])
        await first.ws.close()
        await asyncio.sleep(0.1)
        resumed = Session(await http.ws_connect(fake.gateway_url))
        await resumed.next()
        await resumed.ws.send_json({"op": 6, "d": {"token": fake.token, "session_id": ready["d"]["session_id"], "seq": 1}})
        assert (await resumed.next())["t"] == "RESUMED"
        assert fake.gateway.sessions_on(1) and fake.gateway.overlaps == []
        await asyncio.sleep(0.1)
        twin, _ = await identify(http, fake, [1, 2])
        assert fake.gateway.overlaps == [(1, 2)]
        record = await fake.slash(fake.add_user("u"), "ping", guild=guild)
        assert record.delivered
        for s in (resumed, twin):
            assert any(t == "INTERACTION_CREATE" for t, _ in await s.events_until_quiet())
            await s.ws.close()
    finally:
        await fake.stop()


def test_guilds_can_be_placed_on_a_shard():
    for shard_count in (1, 2, 5):
        for shard_id in range(shard_count):
            guild_id = payloads.snowflake_on_shard(shard_id, shard_count)
            assert (guild_id >> 22) % shard_count == shard_id
