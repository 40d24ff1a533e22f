"""Against the real local vLLM (one server per test session, see tests/fixtures/vllm.py).
Few tests, small max_tokens: this runs on two CPU cores."""

import asyncio
from pathlib import Path
from typing import Literal

import pydantic
import pytest

from serving.client import LLMClient
from serving.prompt import PromptLayout

pytestmark = pytest.mark.vllm

RUBRIC = (Path(__file__).parent / "data" / "rubric.txt").read_text()
CPU_BLOCK_TOKENS = 128  # vLLM's KV block size on CPU; only full blocks are cached

TOPICS = [
    (
        "TOPIC: The KV cache\nKEY POINTS: 1. keys and values of past tokens are stored. "
        "2. each decode step computes attention only for the new token.",
        "ANSWER: During generation we keep the keys and values we already computed, so each new "
        "token only needs its own projections instead of redoing the whole prefix.",
    ),
    (
        "TOPIC: Continuous batching\nKEY POINTS: 1. requests join and leave the batch at every "
        "step. 2. the GPU stays busy instead of waiting for the longest sequence.",
        "ANSWER: The scheduler admits new requests between decode iterations, so a finished "
        "sequence frees its slot right away.",
    ),
]


class Judgement(pydantic.BaseModel):
    status: Literal["covered", "partial", "missing", "wrong"]
    confident: bool


def client_for(base_url: str, **overrides) -> LLMClient:
    options = dict(
        timeout_s=180.0, max_concurrency=8, max_retries=1, breaker_failures=5, breaker_cooldown_s=10.0
    )
    options.update(overrides)
    return LLMClient(base_url, "grader", **options)


async def test_structured_request_returns_a_validated_object(vllm_server):
    layout = PromptLayout(RUBRIC)
    async with client_for(vllm_server) as client:
        assert client.ready
        result = await client.complete_json(layout.messages(*TOPICS[0]), Judgement, max_tokens=48)
    assert isinstance(result, Judgement)
    assert client.breaker_state == "closed"


async def test_concurrent_requests_all_complete(vllm_server):
    layout = PromptLayout("Answer with the JSON object only.")
    async with client_for(vllm_server, max_concurrency=4) as client:
        calls = [
            client.complete_json(layout.messages(f"Item {i}.", "Is this covered?"), Judgement, max_tokens=48)
            for i in range(6)
        ]
        results = await asyncio.gather(*calls)
    assert len(results) == 6 and all(isinstance(r, Judgement) for r in results)


async def test_second_request_with_the_same_prefix_hits_the_prefix_cache(vllm_server):
    layout = PromptLayout(RUBRIC)
    async with client_for(vllm_server) as client:
        prefix_tokens = await client.count_chat_tokens(layout.prefix_messages(), add_generation_prompt=False)
        full_blocks = prefix_tokens // CPU_BLOCK_TOKENS
        assert full_blocks >= 4, f"the shared prefix is only {prefix_tokens} tokens"

        await client.complete_json(layout.messages(*TOPICS[0]), Judgement, max_tokens=48)
        before = await client.prefix_cache_stats()
        # Another topic and answer: identical only up to the end of the static prefix.
        await client.complete_json(layout.messages(*TOPICS[1]), Judgement, max_tokens=48)
        delta = await client.prefix_cache_stats() - before

    assert delta.hits >= full_blocks * CPU_BLOCK_TOKENS
    second_prompt_tokens = await _prompt_tokens(vllm_server, layout.messages(*TOPICS[1]))
    assert delta.queries >= second_prompt_tokens - CPU_BLOCK_TOKENS  # the counter saw this request


async def test_token_counting_matches_the_served_tokenizer(vllm_server):
    async with client_for(vllm_server) as client:
        one = await client.count_tokens("key value cache")
        two = await client.count_tokens("key value cache " * 10)
    assert 1 <= one <= 6
    assert two >= 10 * one - 2


async def _prompt_tokens(base_url: str, messages: list[dict]) -> int:
    async with client_for(base_url) as client:
        return await client.count_chat_tokens(messages)
