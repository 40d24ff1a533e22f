"""How many gradings one bot process takes on at once. A grading is seconds of CPU on a
machine without a GPU judge; past `running` at once and `waiting` queued, a grading is refused
at once, so a burst costs the answers that cannot be served soon a fast "busy, try again"
reply instead of every member a slow one, and the quiz replies sharing the process stay fast
(bench/bot_load.py measures both)."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import AsyncIterator


class GradingQueue:
    def __init__(self, running: int, waiting: int):
        if running < 1 or waiting < 0:
            raise ValueError("at least one grading at a time, and no negative queue")
        self.running, self.waiting = running, waiting
        self._slots = asyncio.Semaphore(running)
        self._inside = 0  # running plus waiting now

    @property
    def busy(self) -> int:
        return self._inside

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[bool]:
        """Yields True once a grading may run (after waiting its turn), False at once when the
        queue is full: the caller then tells the member to try again and grades nothing."""
        if self._inside >= self.running + self.waiting:
            yield False
            return
        self._inside += 1
        try:
            async with self._slots:
                yield True
        finally:
            self._inside -= 1
