"""The fake Discord with one extra power: hold a chosen request until the test
releases it, so a bot process can be killed while that request is in flight.

A held request either *lands* on release (Discord got it and acted on it; only the
reply was lost with the dead process) or is dropped (it never reached Discord).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field

from aiohttp import web

from tests.fakediscord import FakeDiscord


@dataclass
class Hold:
    method: str
    path: str  # a regular expression searched in the request path
    land: bool
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    taken: bool = False

    def matches(self, request: web.Request) -> bool:
        return not self.taken and request.method == self.method and re.search(self.path, request.path) is not None


class HoldingFakeDiscord(FakeDiscord):
    def __init__(self, **gateway_limits):
        super().__init__(**gateway_limits)
        self.holds: list[Hold] = []

    def hold(self, method: str, path: str, *, land: bool) -> Hold:
        """Hold the next matching request (once)."""
        hold = Hold(method, path, land)
        self.holds.append(hold)
        return hold

    async def _held(self, request: web.Request, serve) -> web.Response:
        hold = next((h for h in self.holds if h.matches(request)), None)
        if hold is None:
            return await serve(request)
        hold.taken = True
        hold.arrived.set()
        try:
            await asyncio.wait_for(hold.released.wait(), 120)
            if hold.land:
                return await serve(request)
            return web.json_response({"message": "dropped by the test", "code": 0}, status=503)
        finally:
            hold.finished.set()

    async def _create_message(self, request: web.Request) -> web.Response:
        return await self._held(request, super()._create_message)

    async def _callback(self, request: web.Request) -> web.Response:
        return await self._held(request, super()._callback)
