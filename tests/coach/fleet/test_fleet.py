"""Shard leases and identify spacing (coach/fleet), on SQLite and PostgreSQL, with an injected
clock: who connects which shard, the standby's takeover once a lease lapses, a restart taking
its own shards back, fencing when the database is gone, and identifies spaced per bucket
across two processes (two Stores, two connection pools)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy.exc import OperationalError

from coach.fleet import IdentifyGate, SessionStartLimit, ShardKeeper, shard_of
from coach.store import Store, leases
from tests.coach.helpers import Clock

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
LEASE_S = 30.0
ROUND = timedelta(seconds=LEASE_S / 3)


class Shards:
    """What the Discord side of one process was told: connect and disconnect calls."""

    def __init__(self):
        self.connected: set[int] = set()
        self.log: list[tuple[str, int]] = []

    async def connect(self, shard_id: int) -> None:
        assert shard_id not in self.connected, f"shard {shard_id} connected twice"
        self.connected.add(shard_id)
        self.log.append(("connect", shard_id))

    async def disconnect(self, shard_id: int) -> None:
        self.connected.discard(shard_id)
        self.log.append(("disconnect", shard_id))


def keeper(store, clock, shards: Shards, *, owner: str, own=(), standby=False, count=2, run_id=None):
    return ShardKeeper(store, shard_count=count, own_shards=own, standby=standby, owner=owner, lease_s=LEASE_S,
                       connect=shards.connect, disconnect=shards.disconnect, clock=clock, run_id=run_id)


async def holders(store) -> dict[int, str]:
    return {lease.shard_id: lease.owner for lease in await store.read(leases.all_leases)}


def test_a_guild_belongs_to_the_shard_discord_says():
    guild_id = 1_234_567_890_123_456_789
    assert shard_of(guild_id, 1) == 0
    assert shard_of(guild_id, 4) == (guild_id >> 22) % 4
    assert {shard_of((n << 22), 3) for n in range(6)} == {0, 1, 2}


async def test_each_process_connects_only_the_shards_it_holds(store):
    clock = Clock(T0)
    one, two = Shards(), Shards()
    first = keeper(store, clock, one, owner="bot-1", own=[0])
    second = keeper(store, clock, two, owner="bot-2", own=[1])
    await first.step()
    await second.step()
    assert one.connected == {0} and two.connected == {1}
    assert await holders(store) == {0: "bot-1", 1: "bot-2"}

    # A process configured for a shard someone else holds waits: it connects nothing.
    intruder_shards = Shards()
    intruder = keeper(store, clock, intruder_shards, owner="bot-3", own=[0, 1])
    await intruder.step()
    assert intruder_shards.connected == set() and intruder.held == set()

    # Renewals keep the leases alive well past one lease period.
    for _ in range(6):
        clock.advance(seconds=LEASE_S / 3)
        await first.step()
        await second.step()
        await intruder.step()
    assert one.connected == {0} and two.connected == {1} and intruder_shards.connected == set()


async def test_standby_takes_over_a_dead_process_once_its_lease_lapses(store):
    clock = Clock(T0)
    one, two, spare = Shards(), Shards(), Shards()
    first = keeper(store, clock, one, owner="bot-1", own=[0])
    second = keeper(store, clock, two, owner="bot-2", own=[1])
    standby = keeper(store, clock, spare, owner="standby", standby=True)
    for k in (first, second, standby):
        await k.step()
    assert spare.connected == set()

    # bot-1 dies (no more rounds). Until its lease lapses the standby leaves shard 0 alone.
    while clock() + ROUND < T0 + timedelta(seconds=LEASE_S):
        clock.advance(seconds=LEASE_S / 3)
        await second.step()
        await standby.step()
        assert spare.connected == set()
    clock.advance(seconds=LEASE_S / 3)
    await second.step()
    await standby.step()
    assert spare.connected == {0}, "the standby serves the dead process's shard"
    assert two.connected == {1}, "and leaves the live process's alone"
    assert await holders(store) == {0: "standby", 1: "bot-2"}


async def test_a_process_that_lost_its_lease_stops_the_shard(store):
    clock = Clock(T0)
    one, spare = Shards(), Shards()
    first = keeper(store, clock, one, owner="bot-1", own=[0], count=1)
    standby = keeper(store, clock, spare, owner="standby", standby=True, count=1)
    await first.step()
    await standby.step()
    # bot-1 stalls past its lease (a long pause), the standby claims, then bot-1 wakes up.
    clock.advance(seconds=LEASE_S + 1)
    await standby.step()
    assert spare.connected == {0}
    await first.step()
    assert one.connected == set() and one.log == [("connect", 0), ("disconnect", 0)]
    assert first.held == set()
    # It does not take the shard back while the standby holds it.
    clock.advance(seconds=LEASE_S / 3)
    await standby.step()
    await first.step()
    assert one.connected == set() and spare.connected == {0}


async def test_a_restart_takes_its_own_shards_back_at_once_but_two_namesakes_do_not_flap(store):
    clock = Clock(T0)
    before = Shards()
    await keeper(store, clock, before, owner="bot-1", own=[0, 1]).step()  # then SIGKILLed
    clock.advance(seconds=2)
    after = Shards()
    restarted = keeper(store, clock, after, owner="bot-1", own=[0, 1])
    await restarted.step()
    assert after.connected == {0, 1}, "a restart with the same name does not wait for its own leases"

    # A second live process misconfigured with the same name takes them once, at its start;
    # the first loses them at its next renewal and then waits instead of stealing them back.
    twin_shards = Shards()
    twin = keeper(store, clock, twin_shards, owner="bot-1", own=[0, 1])
    await twin.step()
    assert twin_shards.connected == {0, 1}
    for _ in range(4):
        clock.advance(seconds=LEASE_S / 3)
        await restarted.step()
        await twin.step()
    assert after.connected == set() and twin_shards.connected == {0, 1}
    assert after.log == [("connect", 0), ("connect", 1), ("disconnect", 0), ("disconnect", 1)]


async def test_standby_gives_a_never_claimed_shard_one_lease_period(store):
    clock = Clock(T0)
    spare = Shards()
    standby = keeper(store, clock, spare, owner="standby", standby=True)
    await standby.step()
    assert spare.connected == set(), "at start-up the process that owns shard 0 and 1 gets to claim them first"
    late = Shards()
    clock.advance(seconds=LEASE_S / 3)
    await keeper(store, clock, late, owner="bot-1", own=[0]).step()
    await standby.step()
    assert late.connected == {0} and spare.connected == set()
    clock.advance(seconds=LEASE_S)  # nobody ever came for shard 1; bot-1 keeps renewing in real life
    await standby.step()
    assert 1 in spare.connected


async def test_leases_of_another_shard_count_block_claims(store):
    clock = Clock(T0)
    await keeper(store, clock, Shards(), owner="old", own=[0, 1], count=2).step()
    resharded = Shards()
    await keeper(store, clock, resharded, owner="new", own=[2], count=4).step()
    assert resharded.connected == set(), "shard 2 of 4 overlaps guilds of live shards of 2"


async def test_clean_shutdown_releases_so_the_standby_need_not_wait(store):
    clock = Clock(T0)
    one, spare = Shards(), Shards()
    first = keeper(store, clock, one, owner="bot-1", own=[0], count=1)
    standby = keeper(store, clock, spare, owner="standby", standby=True, count=1)
    await first.step()
    await standby.step()
    await first.close()
    clock.advance(seconds=1)
    await standby.step()
    assert spare.connected == {0}


class FlakyStore:
    """A Store whose database can be switched off."""

    def __init__(self, store):
        self.inner, self.down = store, False

    async def run(self, work, *, read_only=False):
        if self.down:
            raise OperationalError("SELECT 1", {}, ConnectionRefusedError("database unreachable"))
        return await self.inner.run(work, read_only=read_only)


async def test_a_process_cut_off_from_the_database_stops_its_shards_before_the_lease_lapses(store):
    clock = Clock(T0)
    one, spare = Shards(), Shards()
    flaky = FlakyStore(store)
    first = keeper(flaky, clock, one, owner="bot-1", own=[0], count=1)
    standby = keeper(store, clock, spare, owner="standby", standby=True, count=1)
    await first.step()
    await standby.step()
    flaky.down = True
    clock.advance(seconds=LEASE_S / 3)
    await first.step()
    assert one.connected == {0}, "one missed renewal leaves time for the next"
    clock.advance(seconds=LEASE_S / 3)
    await first.step()
    assert one.connected == set(), "stopped: the next round would come after the lease lapsed"
    clock.advance(seconds=LEASE_S / 3)
    await standby.step()
    assert spare.connected == {0}
    assert one.connected & spare.connected == set(), "never both"

    flaky.down = False  # back: the standby holds it now, so bot-1 waits
    clock.advance(seconds=LEASE_S / 3)
    await first.step()
    assert one.connected == set()


async def test_two_processes_racing_for_one_shard_get_one_winner(database_url):
    first, second = Store(database_url), Store(database_url)
    try:
        for shard_id in range(8):
            async def claim(store, owner, s=shard_id):
                return await store.run(lambda db: leases.acquire(
                    db, s, shard_count=8, owner=owner, run_id=owner, ttl=timedelta(seconds=30), now=T0))

            results = await asyncio.gather(claim(first, "a"), claim(second, "b"))
            assert sorted(results) == [False, True], (shard_id, results)
    finally:
        await first.dispose()
        await second.dispose()


# ----- identify spacing ---------------------------------------------------------------------------

class FakeTime:
    """Sleeping moves the clock: the gate's waits are measured, not slept."""

    def __init__(self):
        self.clock = Clock(T0)

    async def sleep(self, seconds: float) -> None:
        self.clock.advance(seconds=seconds)
        await asyncio.sleep(0)


def gate(store, time: FakeTime, limit: SessionStartLimit, owner: str) -> IdentifyGate:
    async def fetch():
        return limit

    return IdentifyGate(store, fetch, owner=owner, clock=time.clock, sleep=time.sleep)


async def test_identifies_in_one_bucket_are_five_seconds_apart_across_processes(database_url):
    limit = SessionStartLimit(total=1000, remaining=990, reset_after_ms=0, max_concurrency=2)
    time = FakeTime()
    first, second = Store(database_url), Store(database_url)
    try:
        a, b = gate(first, time, limit, "bot-1"), gate(second, time, limit, "bot-2")
        await a.wait_turn(0)
        went_at = time.clock()
        await b.wait_turn(1)  # bucket 1: its own window
        assert time.clock() == went_at
        await b.wait_turn(2)  # bucket 0 again, from the other process: waits out the window
        assert time.clock() - went_at >= timedelta(seconds=5)
        assert time.clock() - went_at < timedelta(seconds=6)
    finally:
        await first.dispose()
        await second.dispose()


async def test_no_session_starts_left_waits_for_the_reset(store):
    time = FakeTime()
    limits = iter([SessionStartLimit(1000, 0, 3_600_000, 1), SessionStartLimit(1000, 1000, 86_400_000, 1)])

    async def fetch():
        return next(limits)

    await IdentifyGate(store, fetch, owner="bot-1", clock=time.clock, sleep=time.sleep).wait_turn(0)
    assert time.clock() - T0 >= timedelta(hours=1)


async def test_an_unreadable_limit_still_lets_the_shard_connect_one_at_a_time(store):
    time = FakeTime()

    async def broken():
        raise ConnectionError("REST down")

    gate_ = IdentifyGate(store, broken, owner="bot-1", clock=time.clock, sleep=time.sleep)
    assert await gate_.wait_turn(3) is None
    await gate_.wait_turn(4)  # with no limit known every shard shares one bucket
    assert time.clock() - T0 >= timedelta(seconds=5)


@pytest.mark.parametrize("standby, ids, expected", [(False, None, (0, 1, 2)), (False, (2, 0), (0, 2)), (True, None, ())])
def test_own_shards_from_settings(standby, ids, expected):
    from coach.config import load_settings

    settings = load_settings(shard_count=3, shard_ids=ids, standby=standby, _env_file=None)
    assert settings.own_shards == expected
    assert ("standby" in settings.instance) == standby


async def test_background_calls_share_the_global_limit_between_processes(store):
    from coach.fleet import Pace

    time = FakeTime()
    seconds = lambda: (time.clock() - T0).total_seconds()  # noqa: E731
    processes = [1]
    pace = Pace(lambda: processes[0], budget_per_s=40, clock=seconds, sleep=time.sleep)
    for _ in range(41):
        await pace.wait()
    assert seconds() == pytest.approx(1.0), "one process: 40 a second"
    processes[0] = 4
    began = seconds()
    for _ in range(10):
        await pace.wait()
    assert seconds() - began == pytest.approx(1 / 40 + 9 / 10), "four processes: a quarter each (10 a second)"

    # The keeper counts the processes that hold live leases.
    clock = Clock(T0)
    first = keeper(store, clock, Shards(), owner="bot-1", own=[0])
    second = keeper(store, clock, Shards(), owner="bot-2", own=[1])
    standby = keeper(store, clock, Shards(), owner="standby", standby=True)
    for k in (first, second, standby):
        await k.step()
    assert (first.processes, standby.processes) == (1, 2)  # bot-2 had not claimed yet when bot-1 counted
    for k in (first, second, standby):
        await k.step()
    assert first.processes == second.processes == standby.processes == 2, "a standby holding nothing sends nothing"



class InstantStore:
    """A store whose work finishes without suspending (as SQLite's inline statements do); once
    armed, it has the keeper's task cancelled in the loop turn where that work has just
    finished: the moment Python 3.11's `asyncio.wait_for` takes a cancel for a result and
    drops it."""

    def __init__(self):
        self.calls = 0
        self.cancel = None

    async def run(self, work, *, read_only: bool = False):
        self.calls += 1
        if self.cancel is not None:
            asyncio.get_running_loop().call_soon(self.cancel)
            self.cancel = None
        return []


async def test_a_cancel_that_lands_as_the_keepers_database_work_finishes_stops_it():
    store, shards = InstantStore(), Shards()
    gate = ShardKeeper(store, shard_count=1, own_shards=(), standby=False, owner="a", lease_s=0.03,
                       connect=shards.connect, disconnect=shards.disconnect)
    task = gate.start()
    while store.calls < 2:  # a few rounds in
        await asyncio.sleep(0.005)
    store.cancel = task.cancel  # close()'s cancel, at the worst moment
    done, _ = await asyncio.wait({task}, timeout=2)
    assert done, "the keeper dropped its cancel and went on renewing: close() would wait for it forever"
    async with asyncio.timeout(5):
        await gate.close()
