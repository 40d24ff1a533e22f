"""`/forget`'s confirmation lives in the database: issued by one process, honoured by
another or after a restart, once, by its user only, for ten minutes; forgetting also
deletes the user's short-lived state (drafts, cool-down uses, confirmations)."""

from __future__ import annotations

from datetime import timedelta

import pytest_asyncio
from sqlalchemy import func, select

from coach.engine import Coach
from coach.grading.cooldown import GradingCooldown
from coach.grading.drafts import AnswerDrafts
from coach.store import Store
from coach.store.models import ExpiringStateRow

USER, OTHER, GUILD = 111, 222, 9000


@pytest_asyncio.fixture
async def other_process(database_url, catalog, settings, clock):
    """A second Coach on its own Store over the same database, as another bot process."""
    store = Store(database_url)
    yield Coach(store, catalog, settings, clock=clock, rng_seed=3, enable_fuzzing=False)
    await store.dispose()


async def state_rows(store, owner=None) -> int:
    query = select(func.count()).select_from(ExpiringStateRow)
    if owner is not None:
        query = query.where(ExpiringStateRow.owner == owner)
    return await store.read(lambda db: db.scalar(query))


async def test_a_confirmation_from_one_process_is_honoured_by_another_once(coach, other_process):
    await coach.account.update_settings(USER, timezone="Europe/Paris")
    code = await coach.account.ask_to_forget(USER)
    assert await other_process.account.forget_confirmed(OTHER, code) is None, "another user's click deletes nothing"
    assert await other_process.account.forget_confirmed(USER, code) >= 1
    assert (await coach.account.get_settings(USER)).timezone == "UTC", "the data is gone"
    assert await coach.account.forget_confirmed(USER, code) is None, "a code works once"


async def test_a_confirmation_expires_after_ten_minutes(coach, clock):
    await coach.account.update_settings(USER, reminders=True)
    stale = await coach.account.ask_to_forget(USER)
    clock.advance(minutes=10)
    assert await coach.account.forget_confirmed(USER, stale) is None
    assert (await coach.account.get_settings(USER)).reminders, "nothing was deleted"
    fresh = await coach.account.ask_to_forget(USER)
    clock.advance(minutes=9, seconds=59)
    assert await coach.account.forget_confirmed(USER, fresh) is not None


async def test_forgetting_deletes_the_users_short_lived_state_too(coach, store, clock):
    cooldown = GradingCooldown(store, 3, timedelta(minutes=5), clock)
    drafts = AnswerDrafts(store, clock)
    for user in (USER, OTHER):
        await cooldown.spend_use(user)
        await drafts.keep(user, f"an answer by {user}")
        await coach.account.ask_to_forget(user)
    before = await state_rows(store)
    assert before == 6

    code = await coach.account.ask_to_forget(USER)
    await coach.account.forget_confirmed(USER, code)
    assert await state_rows(store, f"user:{USER}") == 0
    assert await state_rows(store) == before - 3, "the other user's rows stay"
    assert await cooldown.uses_left(USER) == 3
