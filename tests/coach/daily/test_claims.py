"""Who sends a daily post, across processes: a lease before sending, the message id
after, take-over once a holder's lease lapses (with a look in the channel first), and
the day's block after a refusal. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

import pytest_asyncio

from coach.daily.claims import POST_LEASE, DailyPostClaims, PostClaim
from coach.store import Store

GUILD, CHANNEL = 9000, 4242
DAY = date(2026, 3, 2)


@pytest_asyncio.fixture
async def second_store(database_url):
    handle = Store(database_url)
    yield handle
    await handle.dispose()


async def test_one_holder_sends_and_the_others_see_it(store, second_store, clock):
    here, there = DailyPostClaims(store, clock), DailyPostClaims(second_store, clock)
    assert await here.claim(GUILD, DAY, "bot-a", channel_id=CHANNEL) == PostClaim("granted")
    assert await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL) == PostClaim("busy")
    assert await there.claim(GUILD, DAY + timedelta(days=1), "bot-b", channel_id=CHANNEL) == PostClaim("granted"), "per day"
    assert await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL + 1) == PostClaim("granted"), "per channel"
    await here.record_sent(GUILD, DAY, "bot-a", 555, channel_id=CHANNEL)
    assert await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL) == PostClaim("sent", message_id=555)


async def test_a_lapsed_holder_is_taken_over_with_a_look_in_the_channel_first(store, second_store, clock):
    here, there = DailyPostClaims(store, clock), DailyPostClaims(second_store, clock)
    await here.claim(GUILD, DAY, "bot-a", channel_id=CHANNEL)  # ... and bot-a dies mid-send
    clock.advance(seconds=POST_LEASE.total_seconds() - 1)
    assert (await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL)).status == "busy"
    clock.advance(seconds=1)
    assert await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL) == PostClaim("granted", check_channel=True)


async def test_a_restarted_holder_takes_its_own_claim_back_at_once(store, clock):
    await DailyPostClaims(store, clock).claim(GUILD, DAY, "bot-a", channel_id=CHANNEL)
    restarted = Store(store.url)
    try:
        again = await DailyPostClaims(restarted, clock).claim(GUILD, DAY, "bot-a", channel_id=CHANNEL)
    finally:
        await restarted.dispose()
    assert again == PostClaim("granted", check_channel=True), "it may have sent before dying: look first"


async def test_a_refused_post_is_blocked_for_the_day_and_given_up_once(store, second_store, clock):
    here, there = DailyPostClaims(store, clock), DailyPostClaims(second_store, clock)
    await here.claim(GUILD, DAY, "bot-a", channel_id=CHANNEL)
    assert await here.give_up(GUILD, DAY, channel_id=CHANNEL) is True, "the first to give up tells the admin"
    assert await there.claim(GUILD, DAY, "bot-b", channel_id=CHANNEL) == PostClaim("blocked")
    assert await there.give_up(GUILD, DAY, channel_id=CHANNEL) is False
    assert await there.claim(GUILD, DAY + timedelta(days=1), "bot-b", channel_id=CHANNEL) == PostClaim("granted", check_channel=False)


async def test_concurrent_claims_grant_one(store, second_store, clock):
    here, there = DailyPostClaims(store, clock), DailyPostClaims(second_store, clock)
    await here.first_notice(GUILD, "warm-up", timedelta(seconds=1))
    await there.first_notice(GUILD, "warm-up", timedelta(seconds=1))
    for offset in range(10):
        day = DAY + timedelta(days=offset)
        claims = await asyncio.gather(here.claim(GUILD, day, "bot-a", channel_id=CHANNEL),
                                      there.claim(GUILD, day, "bot-b", channel_id=CHANNEL))
        assert sorted(c.status for c in claims) == ["busy", "granted"], claims


async def test_a_notice_goes_once_per_period(store, second_store, clock):
    here, there = DailyPostClaims(store, clock), DailyPostClaims(second_store, clock)
    assert await here.first_notice(GUILD, "no_attach_files", timedelta(days=30))
    assert not await there.first_notice(GUILD, "no_attach_files", timedelta(days=30))
    assert await there.first_notice(GUILD + 1, "no_attach_files", timedelta(days=30))
    clock.advance(days=30)
    assert await there.first_notice(GUILD, "no_attach_files", timedelta(days=30))
