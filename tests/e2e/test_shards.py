"""Shards in the real discord.py client against the fake Discord: two clients on one
database each connect only the shard they hold and answer only its guilds; identifies are
spaced per bucket; a client whose lease is taken stops its shard and does not reconnect it."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from sqlalchemy import update

from coach.store.models import ShardLease
from coach.timeutil import utcnow
from tests.e2e.conftest import ANSWERED


async def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return value


def sessions(fake, shard_id: int) -> int:
    return len(fake.gateway.sessions_on(shard_id))


async def test_two_clients_each_serve_their_own_shard(harness, fake):
    fake.gateway.limits.shard_count = fake.gateway.limits.max_concurrency = 2
    guilds = [fake.add_guild("zero", shard=(0, 2)), fake.add_guild("one", shard=(1, 2))]
    first = await harness.start(shard_count=2, shard_ids=(0,), instance_name="bot-1")
    second = await harness.start(shard_count=2, shard_ids=(1,), instance_name="bot-2")

    assert set(first.shards) == {0} and set(second.shards) == {1}
    assert [(i.shard_id, i.shard_count) for i in fake.gateway.accepted_identifies()] == [(0, 2), (1, 2)]
    assert sessions(fake, 0) == sessions(fake, 1) == 1 and fake.gateway.overlaps == []
    assert len(fake.requests_to("PUT", "/commands")) == 1, "only shard 0's process syncs the commands"
    assert {g.id for g in first.guilds} == {int(guilds[0]["id"])}
    assert first.serves_guild(int(guilds[0]["id"])) and not first.serves_guild(int(guilds[1]["id"]))

    user = fake.add_user("ada")
    for guild in guilds:
        record = await fake.slash(user, "bite", guild=guild, options={"topic": "kv cache"})
        assert record.delivered
        assert await record.acknowledged() in ANSWERED
        assert "KV" in (await fake.reply(record))["embeds"][0]["title"]


async def test_identifies_of_one_bucket_are_a_window_apart(harness, fake):
    window = 1.0
    fake.gateway.limits.shard_count, fake.gateway.limits.max_concurrency = 2, 1
    fake.gateway.limits.identify_window_s = window
    await harness.start(shard_count=2, discord_identify_window_s=window)
    await wait_for(lambda: sessions(fake, 0) and sessions(fake, 1), 10, "both shards")

    identifies = fake.gateway.identifies
    assert [i.accepted for i in identifies] == [True, True], [i.reason for i in identifies]
    assert identifies[1].at - identifies[0].at >= window
    limit = fake.gateway.bot_gateway()["session_start_limit"]
    assert limit["remaining"] == limit["total"] - 2


async def test_a_client_whose_lease_is_taken_stops_the_shard_and_stays_off(harness, fake, settings):
    guild = fake.add_guild()
    bot = await harness.start(shard_lease_s=1.5, instance_name="bot-1")
    assert sessions(fake, 0) == 1

    # Another process took the lease (as a standby does once a lease lapses, e.g. after a stall).
    async def steal(db):
        await db.execute(update(ShardLease).where(ShardLease.shard_id == 0)
                         .values(owner="standby", run_id="someone-else", expires_at=utcnow() + timedelta(minutes=5)))

    await bot.services.store.run(steal)
    await wait_for(lambda: sessions(fake, 0) == 0, 5, "the client to drop shard 0")
    assert bot.keeper.held == set() and not bot.shards_connected()

    await asyncio.sleep(1.5)  # a few more rounds: it neither reconnects nor takes the lease back
    assert sessions(fake, 0) == 0 and len(fake.gateway.accepted_identifies()) == 1
    record = await fake.slash(fake.add_user("bo"), "bite", guild=guild, options={"topic": "kv cache"})
    assert not record.delivered
