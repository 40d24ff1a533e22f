"""The routing key goes out as the header vllm-router's consistent-hash policy reads, on every
attempt, and only when the caller gives one. Checked on the wire: a real local HTTP server
records the headers it received."""

import pytest

from serving.client import ROUTING_KEY_HEADER, routing_headers
from tests.serving import fake_llm as fake
from tests.serving.conftest import Verdict, make_client

MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "An answer."}]
HEADER = ROUTING_KEY_HEADER.lower()


def test_the_header_is_the_one_the_router_hashes_first():
    # vllm-router 0.1.17, src/policies/hash_key.rs: SESSION_HEADER_NAMES starts with x-session-id.
    assert HEADER == "x-session-id"


async def test_the_routing_key_is_sent_as_the_session_header(fake_llm):
    async with make_client(fake_llm.base_url) as client:
        await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key="kv-cache")
        await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key="continuous-batching")
    assert [h.get(HEADER) for h in fake_llm.headers] == ["kv-cache", "continuous-batching"]


async def test_no_routing_key_sends_no_header(fake_llm):
    async with make_client(fake_llm.base_url) as client:
        await client.complete_json(MESSAGES, Verdict, max_tokens=8)
        await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key="")
    assert len(fake_llm.headers) == 2
    assert all(HEADER not in h for h in fake_llm.headers)


async def test_every_retry_carries_the_same_key(fake_llm):
    fake_llm.then(fake.status(503), fake.die(), fake.ok({"status": "covered"}))
    async with make_client(fake_llm.base_url, max_retries=2) as client:
        assert (await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key="rag-basics")).status == "covered"
    assert [h.get(HEADER) for h in fake_llm.headers] == ["rag-basics"] * 3


async def test_a_key_that_is_not_plain_ascii_still_goes_out_stable_and_distinct(fake_llm):
    keys = ["größe", "größe", "grosse", "50% off", "50%25 off", "tab\there"]
    async with make_client(fake_llm.base_url) as client:
        for key in keys:
            await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key=key)
    sent = [h[HEADER] for h in fake_llm.headers]
    assert all(value.isascii() and value.isprintable() and " " not in value for value in sent)
    assert sent[0] == sent[1]  # the same key, the same replica
    assert len({sent[0], sent[2], sent[3], sent[4], sent[5]}) == 5  # different keys stay different


@pytest.mark.parametrize("key", ["kv-cache", "speculative-decoding", "a_b.c~d"])
def test_a_slug_goes_out_unchanged(key):
    assert routing_headers(key) == {ROUTING_KEY_HEADER: key}
