"""A consecutive-failure circuit breaker: after N failures in a row it opens and callers fail
fast for a cool-down; then one trial call is let through (half-open) and its result decides."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

BreakerState = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    def __init__(self, failure_threshold: int, cooldown_s: float, *, clock: Callable[[], float] = time.monotonic):
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False
        self.on_change: Callable[[BreakerState], None] | None = None

    @property
    def state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown_s:
            return "half_open"
        return "open"

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    def allow(self) -> bool:
        """May a call go out now? In half-open, only one trial call at a time."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._trial_in_flight:
            self._trial_in_flight = True
            self._notify()
            return True
        return False

    def record_success(self) -> None:
        changed = self._opened_at is not None
        self._failures = 0
        self._opened_at = None
        self._trial_in_flight = False
        if changed:
            self._notify()

    def record_failure(self) -> None:
        self._failures += 1
        was_trial = self._trial_in_flight
        self._trial_in_flight = False
        if was_trial or self._failures >= self.failure_threshold:
            self._opened_at = self._clock()  # (re)start the cool-down
            self._notify()

    def release_trial(self) -> None:
        """The trial ended without a verdict about the server (e.g. the caller was cancelled)."""
        self._trial_in_flight = False

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change(self.state)
