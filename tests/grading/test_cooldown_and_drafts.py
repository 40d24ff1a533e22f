"""The grading cool-down and answer drafts live in the database: a second process (another
Store on the same database) or a restarted one sees them; expiry follows the injected
clock. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest_asyncio

from coach.grading.cooldown import GradingCooldown
from coach.grading.drafts import TTL, AnswerDrafts
from coach.store import Store
from tests.coach.helpers import Clock

USER, OTHER = 41, 42
WINDOW = timedelta(minutes=5)


@pytest_asyncio.fixture
async def second_store(database_url):
    """Another process's view of the same database (its own connection pool)."""
    handle = Store(database_url)
    yield handle
    await handle.dispose()


async def test_uses_are_a_sliding_window(store):
    clock = Clock()
    cooldown = GradingCooldown(store, 2, WINDOW, clock)
    assert (await cooldown.spend_use(USER)).spent
    clock.advance(minutes=2)
    assert (await cooldown.spend_use(USER)).spent
    refused = await cooldown.spend_use(USER)
    assert not refused.spent and refused.retry_after_s == 180.0  # the first use frees at minute 5
    assert (await cooldown.spend_use(USER)).retry_after_s == 180.0, "a refusal spends nothing"
    assert await cooldown.uses_left(USER) == 0 and await cooldown.uses_left(OTHER) == 2
    clock.advance(minutes=3)
    assert await cooldown.uses_left(USER) == 1
    assert (await cooldown.spend_use(USER)).spent
    assert (await cooldown.spend_use(USER)).retry_after_s == 120.0  # the use of minute 2 frees at minute 7


async def test_a_refund_gives_the_use_back(store):
    cooldown = GradingCooldown(store, 1, WINDOW, Clock())
    use = await cooldown.spend_use(USER)
    assert await cooldown.uses_left(USER) == 0
    await cooldown.refund(use)
    assert await cooldown.uses_left(USER) == 1


async def test_another_process_and_a_restart_count_the_same_uses(store, second_store):
    clock = Clock()
    await GradingCooldown(store, 2, WINDOW, clock).spend_use(USER)
    await GradingCooldown(second_store, 2, WINDOW, clock).spend_use(USER)
    assert not (await GradingCooldown(store, 2, WINDOW, clock).spend_use(USER)).spent
    await store.dispose()  # "restart": a fresh engine on the same database
    restarted = Store(store.url)
    try:
        assert await GradingCooldown(restarted, 2, WINDOW, clock).uses_left(USER) == 0
    finally:
        await restarted.dispose()


async def test_two_processes_racing_for_the_last_use_get_it_once(store, second_store):
    clock = Clock()
    first, second = GradingCooldown(store, 1, WINDOW, clock), GradingCooldown(second_store, 1, WINDOW, clock)
    await first.uses_left(USER), await second.uses_left(USER)  # connections open before the race
    for user in range(100, 110):
        uses = await asyncio.gather(first.spend_use(user), second.spend_use(user))
        assert sorted(use.spent for use in uses) == [False, True], user


async def test_a_draft_is_for_its_writer_once_and_until_it_expires(store, second_store):
    clock = Clock()
    drafts = AnswerDrafts(store, clock)
    token = await drafts.keep(USER, "my answer about KV caches")
    assert await drafts.take(OTHER, token) is None, "another user's click finds nothing"
    elsewhere = AnswerDrafts(second_store, clock)  # the click lands on another process
    draft = await elsewhere.take(USER, token)
    assert draft.text == "my answer about KV caches" and draft.until == clock() + TTL
    assert await drafts.take(USER, token) is None, "used once"

    late = await drafts.keep(USER, "another answer")
    clock.advance(minutes=13, seconds=59)
    assert await store.purge_expired_state(now=clock()) == 0
    clock.advance(seconds=1)
    assert await store.purge_expired_state(now=clock()) == 1, "after 14 minutes the purge deletes the text"
    assert await drafts.take(USER, late) is None
    assert TTL <= timedelta(minutes=15)


async def test_a_draft_given_back_keeps_its_original_deadline(store):
    clock = Clock()
    drafts = AnswerDrafts(store, clock)
    token = await drafts.keep(USER, "held answer")
    clock.advance(minutes=10)
    draft = await drafts.take(USER, token)
    await drafts.give_back(USER, draft)
    clock.advance(minutes=3, seconds=59)
    assert (await drafts.take(USER, token)).text == "held answer"
    await drafts.give_back(USER, draft)
    clock.advance(seconds=1)
    assert await drafts.take(USER, token) is None, "14 minutes after it was written, however often it went back"
