from typing import Literal

import pydantic
import pytest

from serving.client import LLMClient
from tests.serving.fake_llm import FakeLLMServer


class Verdict(pydantic.BaseModel):
    """A stand-in for a grader's per-key-point verdict."""

    status: Literal["covered", "partial", "missing", "wrong"]


@pytest.fixture
async def fake_llm():
    server = await FakeLLMServer().start()
    yield server
    await server.stop()


def make_client(base_url: str, **overrides) -> LLMClient:
    options = dict(
        timeout_s=1.0,
        max_concurrency=4,
        max_retries=2,
        breaker_failures=3,
        breaker_cooldown_s=0.3,
        retry_backoff_s=0.01,
    )
    options.update(overrides)
    return LLMClient(base_url, "grader", **options)
