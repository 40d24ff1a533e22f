"""Discord's global REST limit is per bot, not per process: 50 requests a second across every
process of the bot (interaction responses and follow-ups are exempt). The calls a process makes
on its own (daily posts, reminder DMs, owner notices, channel reads) go through a Pace that
gives it an equal share of a budget kept below that limit, by the number of processes that
hold leases now, so a fleet posting at the top of the hour does not earn 429s together.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

GLOBAL_LIMIT_PER_S = 50.0  # Discord's, per bot token
BACKGROUND_BUDGET_PER_S = 40.0  # what the background jobs of all processes may use together


class Pace:
    def __init__(self, processes: Callable[[], int], budget_per_s: float = BACKGROUND_BUDGET_PER_S,
                 clock: Callable[[], float] = time.monotonic, sleep=asyncio.sleep):
        self.processes, self.budget_per_s, self.clock, self.sleep = processes, budget_per_s, clock, sleep
        self._next = 0.0

    @property
    def per_second(self) -> float:
        return self.budget_per_s / max(1, self.processes())

    async def wait(self) -> None:
        """Return when this process may make its next background call (callers queue up)."""
        now = self.clock()
        start = max(now, self._next)
        self._next = start + 1 / self.per_second
        if start > now:
            await self.sleep(start - now)
