from typing import Literal

import pydantic
import pytest

from serving.client import LLMClient
from tests.serving.fake_llm import FakeLLMServer


class Verdict(pydantic.BaseModel):
    """A stand-in for a grader's per-key-point verdict."""

    status: Literal["covered", "partial", "missing", "wrong"]


class ManualClock:
    """A clock for the circuit breaker that moves only when the test moves it: a cool-down
    ends when the test says so, however slowly a busy machine runs the test. (Steps that
    are sums of powers of two, like 0.375 + 0.125, land exactly on a cool-down's end.)"""

    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def fake_llm():
    server = await FakeLLMServer().start()
    yield server
    await server.stop()


def make_client(base_url: str, **overrides) -> LLMClient:
    """A client with small test settings. Its breaker runs on a `ManualClock` (pass `clock=`
    to move it): no breaker opens or half-opens because the machine stalled. The request
    timeout is long for the same reason; a test of the timeout sets its own."""
    options = dict(
        clock=ManualClock(),
        timeout_s=10.0,
        max_concurrency=4,
        max_retries=2,
        breaker_failures=3,
        breaker_cooldown_s=0.3,
        retry_backoff_s=0.01,
    )
    options.update(overrides)
    return LLMClient(base_url, "grader", **options)
