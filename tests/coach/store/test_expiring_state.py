"""The store's expiring state, on SQLite and PostgreSQL: expiry by an injected clock,
one-shot takes, claims, and atomicity between two Stores (two connection pools, as two
bot processes would have) racing on the same rows."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
import pytest_asyncio

from coach.store import Store

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
MINUTE = timedelta(minutes=1)


async def test_put_then_get_until_it_expires(store):
    await store.put_state("cooldown", "u1", {"n": 1}, MINUTE, now=T0)
    assert await store.get_state("cooldown", "u1", now=T0 + timedelta(seconds=59)) == {"n": 1}
    assert await store.get_state("cooldown", "u1", now=T0 + MINUTE) is None  # expiry is exclusive
    assert await store.get_state("cooldown", "other", now=T0) is None
    assert await store.get_state("draft", "u1", now=T0) is None  # kinds are separate namespaces


async def test_put_replaces_value_and_expiry(store):
    await store.put_state("notice", "g1", {"v": "old"}, MINUTE, now=T0)
    await store.put_state("notice", "g1", {"v": "new", "nested": [1, {"a": None}]}, 10 * MINUTE, now=T0)
    assert await store.get_state("notice", "g1", now=T0 + 5 * MINUTE) == {"v": "new", "nested": [1, {"a": None}]}


async def test_take_returns_once_and_never_after_expiry(store):
    await store.put_state("nonce", "a", {"ok": True}, MINUTE, now=T0)
    assert await store.take_state("nonce", "a", now=T0) == {"ok": True}
    assert await store.take_state("nonce", "a", now=T0) is None
    assert await store.get_state("nonce", "a", now=T0) is None

    await store.put_state("nonce", "b", {"ok": True}, MINUTE, now=T0)
    assert await store.take_state("nonce", "b", now=T0 + 2 * MINUTE) is None
    # The expired row was removed by the take, so nothing is left to purge.
    assert await store.purge_expired_state(now=T0 + 2 * MINUTE) == 0


async def test_claim_refuses_a_live_row_and_takes_an_expired_one(store):
    assert await store.claim_state("post", "g1:2026-03-01", {"by": "p1"}, MINUTE, owner="p1", now=T0)
    assert not await store.claim_state("post", "g1:2026-03-01", {"by": "p2"}, MINUTE, owner="p2", now=T0 + 30 * timedelta(seconds=1))
    assert await store.get_state("post", "g1:2026-03-01", now=T0) == {"by": "p1"}
    # Once the first claim lapses, the next claimer gets it and its value replaces the old one.
    assert await store.claim_state("post", "g1:2026-03-01", {"by": "p2"}, MINUTE, owner="p2", now=T0 + MINUTE)
    assert await store.get_state("post", "g1:2026-03-01", now=T0 + MINUTE) == {"by": "p2"}


async def test_delete_and_purge(store):
    await store.put_state("a", "live", {}, 10 * MINUTE, now=T0)
    await store.put_state("a", "gone", {}, MINUTE, now=T0)
    await store.put_state("b", "gone", {}, 2 * MINUTE, now=T0)
    await store.delete_state("a", "live")
    await store.delete_state("a", "never-there")  # deleting nothing is fine
    assert await store.get_state("a", "live", now=T0) is None
    await store.put_state("a", "live", {}, 10 * MINUTE, now=T0)
    assert await store.purge_expired_state(now=T0 + 3 * MINUTE) == 2
    assert await store.get_state("a", "live", now=T0 + 3 * MINUTE) == {}
    assert await store.purge_expired_state(now=T0 + 3 * MINUTE) == 0


async def test_default_clock_is_the_wall_clock(store):
    await store.put_state("k", "x", {"v": 1}, timedelta(hours=1))
    assert await store.get_state("k", "x") == {"v": 1}
    assert await store.get_state("k", "x", now=datetime.now(timezone.utc) + timedelta(hours=2)) is None


async def test_bad_arguments_are_refused(store):
    with pytest.raises(ValueError, match="ttl"):
        await store.put_state("k", "x", {}, timedelta(0))
    with pytest.raises(TypeError, match="dict"):
        await store.put_state("k", "x", ["not", "a", "dict"], MINUTE)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="key"):
        await store.claim_state("k", "x" * 201, {}, MINUTE)
    with pytest.raises(ValueError, match="naive"):
        await store.get_state("k", "x", now=datetime(2026, 1, 1))


@pytest_asyncio.fixture
async def rival_stores(database_url):
    """Two more Stores on the test's database: separate pools, as two processes have."""
    first, second = Store(database_url), Store(database_url)
    # Open a connection in each pool first, so the race is between statements, not connects.
    await first.get_state("warm", "up")
    await second.get_state("warm", "up")
    yield first, second
    await first.dispose()
    await second.dispose()


async def test_concurrent_claims_from_two_stores_have_one_winner(store, rival_stores):
    first, second = rival_stores
    for round_ in range(20):
        key = f"g:{round_}"
        results = await asyncio.gather(
            first.claim_state("post", key, {"by": "first"}, MINUTE, owner="first"),
            second.claim_state("post", key, {"by": "second"}, MINUTE, owner="second"),
        )
        assert sorted(results) == [False, True], (round_, results)
        winner = "first" if results[0] else "second"
        assert await store.get_state("post", key) == {"by": winner}


async def test_concurrent_claims_on_an_expired_row_have_one_winner(store, rival_stores):
    first, second = rival_stores
    later = T0 + 2 * MINUTE
    for round_ in range(10):
        key = f"e:{round_}"
        await store.put_state("post", key, {"by": "old"}, MINUTE, now=T0)
        results = await asyncio.gather(
            first.claim_state("post", key, {"by": "first"}, MINUTE, now=later),
            second.claim_state("post", key, {"by": "second"}, MINUTE, now=later),
        )
        assert sorted(results) == [False, True], (round_, results)


async def test_concurrent_takes_from_two_stores_deliver_once(store, rival_stores):
    first, second = rival_stores
    for round_ in range(20):
        key = f"n:{round_}"
        await store.put_state("nonce", key, {"round": round_}, MINUTE)
        results = await asyncio.gather(first.take_state("nonce", key), second.take_state("nonce", key))
        assert sorted(results, key=lambda r: r is None) == [{"round": round_}, None]


async def test_reclaim_own_takes_back_only_the_same_owners_live_row(store):
    assert await store.claim_state("lease", "g1", {}, MINUTE, owner="bot-a", now=T0)
    assert not await store.claim_state("lease", "g1", {}, MINUTE, owner="bot-b", reclaim_own=True, now=T0)
    assert not await store.claim_state("lease", "g1", {}, MINUTE, owner="bot-a", now=T0), "only when asked"
    assert await store.claim_state("lease", "g1", {"n": 2}, MINUTE, owner="bot-a", reclaim_own=True, now=T0)
    assert await store.get_state("lease", "g1", now=T0) == {"n": 2}
    with pytest.raises(ValueError, match="owner"):
        await store.claim_state("lease", "g2", {}, MINUTE, reclaim_own=True, now=T0)
