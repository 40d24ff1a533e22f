"""Per-user limits kept in memory: the /explain cool-down and short-lived answer drafts."""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict, deque


class Cooldown:
    """At most `limit` uses per `window_s` seconds per key (a sliding window)."""

    def __init__(self, limit: int, window_s: float, clock=time.monotonic, max_keys: int = 100_000):
        self.limit, self.window_s, self.clock, self.max_keys = limit, window_s, clock, max_keys
        self._uses: OrderedDict[object, deque[float]] = OrderedDict()

    def take(self, key) -> float:
        """Take a use for `key` if one is free (returns 0 and counts it); otherwise count nothing
        and return the seconds until one frees up."""
        now = self.clock()
        uses = self._uses.pop(key, None) or deque()
        while uses and now - uses[0] >= self.window_s:
            uses.popleft()
        if len(uses) >= self.limit:
            self._uses[key] = uses
            return self.window_s - (now - uses[0])
        uses.append(now)
        self._uses[key] = uses
        while len(self._uses) > self.max_keys:
            self._uses.popitem(last=False)
        return 0.0


class Drafts:
    """A user's last answer, held in memory for a few minutes so "Grade as: <other bite>"
    can re-grade it without asking again. Never stored: answer texts stay private."""

    def __init__(self, ttl_s: float = 900, clock=time.monotonic, max_items: int = 10_000):
        self.ttl_s, self.clock, self.max_items = ttl_s, clock, max_items
        self._items: OrderedDict[str, tuple[int, str, float]] = OrderedDict()

    def put(self, user_id: int, text: str) -> str:
        key = secrets.token_hex(4)
        self._items[key] = (user_id, text, self.clock() + self.ttl_s)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)
        return key

    def get(self, user_id: int, key: str) -> str | None:
        """The draft, only for the user who wrote it and only while fresh."""
        item = self._items.get(key)
        if item is None or item[0] != user_id or item[2] < self.clock():
            return None
        return item[1]
