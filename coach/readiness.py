"""Readiness: the conjunction of the components that must work; the LLM reported apart.

Each component registers its check when it starts (database, catalog, index...). The
LLM is registered as non-critical: the bot still serves (embedding grader) without it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Awaitable, Callable

Check = Callable[[], Awaitable[bool]]


@dataclass
class Readiness:
    critical: dict[str, Check] = field(default_factory=dict)
    optional: dict[str, Check] = field(default_factory=dict)
    details: dict[str, Callable[[], dict]] = field(default_factory=dict)  # reported as they are, never gating
    timeout_s: float = 2.0

    def register(self, name: str, check: Check, *, critical: bool = True) -> None:
        (self.critical if critical else self.optional)[name] = check

    def describe(self, name: str, detail: Callable[[], dict]) -> None:
        """Report `detail()` under `name` (e.g. the LLM judge's qualification and its figures)."""
        self.details[name] = detail

    async def _run(self, check: Check) -> bool:
        try:
            return bool(await asyncio.wait_for(check(), self.timeout_s))
        except Exception:
            return False

    async def report(self) -> dict:
        names = list(self.critical) + list(self.optional)
        results = await asyncio.gather(*(self._run(c) for c in [*self.critical.values(), *self.optional.values()]))
        status = dict(zip(names, results))
        ready = all(status[n] for n in self.critical)
        degraded = [n for n in self.optional if not status[n]]
        return {"ready": ready, "checks": status, "degraded": degraded,
                **{name: detail() for name, detail in self.details.items()}}
