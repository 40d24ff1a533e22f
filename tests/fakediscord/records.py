"""What the fake Discord remembers: requests, interactions and injected faults."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

FIRST_RESPONSE_DEADLINE_S = 3.0
TOKEN_LIFETIME_S = 15 * 60

RESPONSE_MESSAGE = 4
RESPONSE_DEFER = 5
RESPONSE_DEFER_UPDATE = 6
RESPONSE_UPDATE = 7
RESPONSE_MODAL = 9


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict
    body: object
    status: int = 0
    at: float = 0.0
    files: list = field(default_factory=list)  # [(index, filename, size)] of a multipart request


@dataclass
class Fault:
    """Answer matching requests with `status` instead of serving them, `times` times
    (per distinct route when `per_route`)."""

    status: int
    method: str | None = None
    path: str = ".*"
    times: int = 1
    retry_after: float = 0.05
    per_route: bool = False
    hits: int = 0
    routes_hit: dict = field(default_factory=dict)

    def take(self, method: str, route_key: str, path: str) -> bool:
        if self.method and self.method != method:
            return False
        if not re.search(self.path, path):
            return False
        if self.per_route:
            if self.routes_hit.get(route_key, 0) >= self.times:
                return False
            self.routes_hit[route_key] = self.routes_hit.get(route_key, 0) + 1
        elif self.hits >= self.times:
            return False
        self.hits += 1
        return True


@dataclass
class InteractionRecord:
    """One INTERACTION_CREATE the fake pushed, and everything the bot did about it."""

    payload: dict
    dispatched_at: float
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    callbacks: list[tuple[float, int, dict]] = field(default_factory=list)
    rejected: list[tuple[str, int, dict]] = field(default_factory=list)  # (what, status, body)
    followups: list[dict] = field(default_factory=list)
    edits: int = 0  # PATCHes of the original response (a deferred update lands as one)
    landed: list[float] = field(default_factory=list)  # when each edit or followup was accepted
    original_message_id: int | None = None
    modal: dict | None = None
    delivered: bool = True  # False: no live gateway session served its shard (or the one that did died as it was sent)

    @property
    def id(self) -> str:
        return self.payload["id"]

    @property
    def token(self) -> str:
        return self.payload["token"]

    @property
    def response_type(self) -> int | None:
        return self.callbacks[0][1] if self.callbacks else None

    @property
    def first_response_latency(self) -> float | None:
        return self.callbacks[0][0] - self.dispatched_at if self.callbacks else None

    def notify(self) -> None:
        self.changed.set()

    async def wait(self, predicate, timeout: float = 10.0):
        """Wait until `predicate(self)` is truthy and return its value."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate(self)
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"interaction {self.payload.get('data', {}).get('name') or self.payload.get('data', {}).get('custom_id')}:"
                    f" condition not met; callbacks={[c[1] for c in self.callbacks]} rejected={self.rejected}"
                )
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                pass

    async def acknowledged(self, timeout: float = 10.0) -> int:
        return await self.wait(lambda r: r.response_type, timeout)

    async def followup(self, index: int = 0, timeout: float = 30.0) -> dict:
        return await self.wait(lambda r: r.followups[index] if len(r.followups) > index else None, timeout)
