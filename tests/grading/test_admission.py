"""The grading queue: at most `running` at once, `waiting` more queued, the rest refused at once."""

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
