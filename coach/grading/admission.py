"""How many gradings one bot process takes on at once. A grading is seconds of CPU on a
machine without a GPU judge; past `running` at once and `waiting` queued, a grading is refused
at once, so a burst costs the answers that cannot be served soon a fast "busy, try again"
reply instead of every member a slow one, and the quiz replies sharing the process stay fast
(bench/bot_load.py measures both).

An interview turn is asked for with `urgent=True`: a member is mid-conversation, and a new
`/explain` can be tried again later without losing anything. A turn takes the next free slot
before any waiting `/explain`, and is refused only when as many turns as `running + waiting`
are already in (interviews have their own rate limit, so that is a true burst).

`urgent_reserve` slots of the `running` are kept for turns: an `/explain` starts only while more
than that many are free. With one grader worker a second `/explain` in flight only waits inside
the worker, so the reserve costs `/explain` little, and a turn then waits behind at most the
grading in progress instead of that one plus one more queued in the worker (bench/bot_load.py).
Grading turns on the bot's own thread, or in a worker of their own, was measured and not kept
(docs/scaling.md)."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from contextlib import asynccontextmanager
from typing import AsyncIterator

from prometheus_client import Counter, Histogram

# What an operator needs to tell a slow grade's cause: waiting here (a burst) or grading itself
# (`coach_grading_seconds`, coach/grading/pipeline.py). bench/bot_load.py found slow replies waiting.
WAIT_SECONDS = Histogram("coach_grading_wait_seconds", "Time a grading waited for a slot in this process's queue",
                         ["kind"], buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0))
REFUSED = Counter("coach_grading_refused_total", "Gradings refused at once: the queue was full", ["kind"])


class GradingQueue:
    def __init__(self, running: int, waiting: int, urgent_reserve: int = 0):
        if running < 1 or waiting < 0:
            raise ValueError("at least one grading at a time, and no negative queue")
        if not 0 <= urgent_reserve < running:
            raise ValueError("the slots kept for interview turns must leave /explain at least one")
        self.running, self.waiting, self.urgent_reserve = running, waiting, urgent_reserve
        self._free = running
        self._queued: dict[bool, deque[asyncio.Future]] = {True: deque(), False: deque()}
        self._inside = {True: 0, False: 0}  # running plus waiting now, urgent and not

    @property
    def busy(self) -> int:
        return self._inside[True] + self._inside[False]

    @asynccontextmanager
    async def slot(self, *, urgent: bool = False) -> AsyncIterator[bool]:
        """Yields True once a grading may run (after waiting its turn), False at once when the
        queue is full: the caller then tells the member to try again and grades nothing."""
        kind = "turn" if urgent else "explain"
        inside = self._inside[True] if urgent else self.busy
        if inside >= self.running + self.waiting:
            REFUSED.labels(kind).inc()
            yield False
            return
        self._inside[urgent] += 1
        try:
            started = time.perf_counter()
            await self._acquire(urgent)
            WAIT_SECONDS.labels(kind).observe(time.perf_counter() - started)
            try:
                yield True
            finally:
                self._release()
        finally:
            self._inside[urgent] -= 1

    async def _acquire(self, urgent: bool) -> None:
        if self._free > (0 if urgent else self.urgent_reserve) and not self._queued[True] \
                and (urgent or not self._queued[False]):
            self._free -= 1
            return
        waiter = asyncio.get_running_loop().create_future()
        self._queued[urgent].append(waiter)
        try:
            await waiter  # `_release` hands its slot over: `_free` is not given back
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # the slot arrived as we were cancelled: pass it on
            else:
                self._queued[urgent].remove(waiter)
            raise

    def _release(self) -> None:
        """Hands the freed slot to the first waiting turn, else to the first waiting `/explain`
        if it leaves the reserve free, else keeps it."""
        for urgent in (True, False):
            if not urgent and self._free < self.urgent_reserve:
                break
            while self._queued[urgent]:
                waiter = self._queued[urgent].popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._free += 1
