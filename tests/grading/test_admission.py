"""The grading queue: at most `running` at once, `waiting` more queued, the rest refused at once;
an interview turn goes before a waiting /explain and is not refused for their queue."""

import asyncio

import pytest

from coach.grading.admission import GradingQueue


async def test_runs_at_most_running_queues_waiting_and_refuses_the_rest():
    queue = GradingQueue(running=2, waiting=1)
    release = asyncio.Event()
    started, outcomes = [], []

    async def grading(name):
        async with queue.slot() as admitted:
            outcomes.append((name, admitted))
            if admitted:
                started.append(name)
                await release.wait()

    tasks = [asyncio.create_task(grading(n)) for n in "abc"]
    await asyncio.sleep(0.01)
    assert started == ["a", "b"] and queue.busy == 3, "two run, the third waits its turn"
    await grading("d")  # the queue is full: refused at once, without waiting
    assert ("d", False) in outcomes
    release.set()
    await asyncio.gather(*tasks)
    assert started == ["a", "b", "c"] and queue.busy == 0
    async with queue.slot() as admitted:
        assert admitted, "room again once they finished"


def test_needs_at_least_one_running():
    with pytest.raises(ValueError):
        GradingQueue(running=0, waiting=3)


async def test_an_interview_turn_goes_before_waiting_explanations_and_is_not_refused_for_them():
    queue = GradingQueue(running=1, waiting=1)
    gates = {name: asyncio.Event() for name in ("a", "b", "turn")}
    order, refused = [], []

    async def grading(name, urgent=False):
        async with queue.slot(urgent=urgent) as admitted:
            if not admitted:
                refused.append(name)
                return
            order.append(name)
            await gates[name].wait()

    a = asyncio.create_task(grading("a"))
    b = asyncio.create_task(grading("b"))
    await asyncio.sleep(0.01)
    await grading("c")
    assert refused == ["c"], "an /explain past running + waiting is refused"
    turn = asyncio.create_task(grading("turn", urgent=True))
    await asyncio.sleep(0.01)
    assert order == ["a"] and not refused[1:], "the turn is queued, not refused"
    gates["a"].set()
    await asyncio.sleep(0.01)
    assert order == ["a", "turn"], "the turn took the free slot before the waiting /explain"
    gates["turn"].set()
    gates["b"].set()
    await asyncio.gather(a, b, turn)
    assert order == ["a", "turn", "b"] and queue.busy == 0


async def test_a_cancelled_waiter_gives_its_place_back():
    queue = GradingQueue(running=1, waiting=2)
    hold = asyncio.Event()

    async def grading():
        async with queue.slot() as admitted:
            assert admitted
            await hold.wait()

    first = asyncio.create_task(grading())
    await asyncio.sleep(0.01)
    second = asyncio.create_task(grading())
    await asyncio.sleep(0.01)
    second.cancel()
    await asyncio.gather(second, return_exceptions=True)
    assert queue.busy == 1
    hold.set()
    await first
    async with queue.slot() as admitted:
        assert admitted and queue.busy == 1


async def test_a_reserved_slot_lets_a_turn_start_at_once_while_explanations_wait():
    queue = GradingQueue(running=2, waiting=2, urgent_reserve=1)
    release = {name: asyncio.Event() for name in ("a", "b", "turn")}
    started = []

    async def grading(name, urgent=False):
        async with queue.slot(urgent=urgent) as admitted:
            assert admitted
            started.append(name)
            await release[name].wait()

    a = asyncio.create_task(grading("a"))
    b = asyncio.create_task(grading("b"))
    await asyncio.sleep(0.01)
    assert started == ["a"], "the second /explain waits: one slot is kept for turns"
    turn = asyncio.create_task(grading("turn", urgent=True))
    await asyncio.sleep(0.01)
    assert started == ["a", "turn"], "the turn takes the kept slot at once"
    release["turn"].set()
    await turn
    await asyncio.sleep(0.01)
    assert started == ["a", "turn"], "the freed slot is the reserve again, not the waiting /explain's"
    release["a"].set()
    await asyncio.sleep(0.01)
    assert started == ["a", "turn", "b"], "a finished /explain hands its slot to the next"
    release["b"].set()
    await asyncio.gather(a, b)
    assert queue.busy == 0


def test_the_reserve_leaves_explanations_a_slot():
    with pytest.raises(ValueError):
        GradingQueue(running=2, waiting=1, urgent_reserve=2)


async def test_waits_and_refusals_are_counted_for_the_operator():
    """`coach_grading_wait_seconds` and `coach_grading_refused_total`, by kind: what tells a
    slow grade waiting in a burst from a slow grading (bench/bot_load.py found the former)."""
    from prometheus_client import REGISTRY

    def sample(name, kind):
        return REGISTRY.get_sample_value(name, {"kind": kind}) or 0.0

    before = {(n, k): sample(n, k) for n in ("coach_grading_wait_seconds_count", "coach_grading_wait_seconds_sum",
                                              "coach_grading_refused_total") for k in ("explain", "turn")}
    queue = GradingQueue(running=1, waiting=1)
    release = asyncio.Event()

    async def grading(urgent=False, hold=True):
        async with queue.slot(urgent=urgent) as admitted:
            if admitted and hold:
                await release.wait()

    first = asyncio.create_task(grading())
    second = asyncio.create_task(grading(hold=False))  # waits for the first
    await asyncio.sleep(0.01)
    await grading()  # refused at once
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.gather(first, second)
    await grading(urgent=True, hold=False)
    assert sample("coach_grading_refused_total", "explain") == before[("coach_grading_refused_total", "explain")] + 1
    assert sample("coach_grading_wait_seconds_count", "explain") == before[("coach_grading_wait_seconds_count", "explain")] + 2
    waited = sample("coach_grading_wait_seconds_sum", "explain") - before[("coach_grading_wait_seconds_sum", "explain")]
    assert 0.05 <= waited < 5, "the second waited for the first to finish"
    assert sample("coach_grading_wait_seconds_count", "turn") == before[("coach_grading_wait_seconds_count", "turn")] + 1
    assert sample("coach_grading_refused_total", "turn") == before[("coach_grading_refused_total", "turn")]
