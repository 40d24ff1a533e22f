"""One grading end to end through the real local vLLM (SmolLM2-135M: a plumbing check,
not a judge, so the test asserts the contract and the quote checks, not the score)."""

import asyncio
import time

import httpx
import pytest

from serving.client import root_url
from serving.local.server import LocalServerConfig
from serving.vllm_metrics import counter_total

from tests.fixtures.vllm import SETUP_TIMEOUT_S
from tests.grading.conftest import make_grader, make_llm_client

# On a bare machine the first vLLM test also installs and starts the server.
pytestmark = [pytest.mark.vllm, pytest.mark.timeout(SETUP_TIMEOUT_S)]

# A 6-point bite: the 135M model's verdict for a 7-point one no longer fits the output cap since
# the verdict asks for the mechanism and the topic too (the model pads its quotes).
ANSWER = (
    "The KV cache keeps the attention keys and values of earlier tokens for every layer, so each decode step "
    "only computes the key and value for the newest token. It saves compute, but the cache memory grows with "
    "sequence length and batch size, and that memory often limits how many requests fit on the GPU."
)
BITE = "kv-cache"


async def server_idle(base_url: str, timeout_s: float = 600.0) -> None:
    """Wait until the server runs nothing else (an earlier test's bot may have left requests it
    stopped waiting for): batched beside other work, the 135M model's output, and its length, change."""
    deadline = time.monotonic() + timeout_s
    async with httpx.AsyncClient(base_url=root_url(base_url), timeout=10.0) as http:
        while time.monotonic() < deadline:
            text = (await http.get("/metrics")).text
            if counter_total(text, "vllm:num_requests_running") + counter_total(text, "vllm:num_requests_waiting") == 0:
                return
            await asyncio.sleep(2)


async def test_one_grading_through_the_local_vllm(vllm_server, shipped_catalog, shipped_topics, embedding_judge):
    client = make_llm_client(vllm_server, timeout_s=300.0)
    await client.start()
    try:
        await server_idle(vllm_server)
        # All the context the prompt leaves (the shipped cap is about that here): the 135M model
        # pads its quotes, and how long it runs on varies with what else the server is batching.
        probe = make_grader(shipped_catalog, shipped_topics, embedding_judge, client)
        prompt = await client.count_chat_tokens(probe.llm_judge.messages(shipped_catalog.bites[BITE], ANSWER))
        room = LocalServerConfig().max_model_len - prompt - 8  # the fence differs per call by a few tokens at most
        grader = make_grader(shipped_catalog, shipped_topics, embedding_judge, client, max_tokens=room)
        # Up to three tries: on CPU the 135M model's output is not repeatable, and now and then it
        # pads a verdict past the cap (the pipeline then falls back, as it should). The plumbing
        # holds if one real structured reply comes back whole and verified.
        for _ in range(3):
            grade = await grader.grade(ANSWER, BITE)
            if grade.grader == "llm":
                break
    finally:
        await client.aclose()
    assert grade.grader == "llm"  # a fallback here means the real structured call failed
    assert [kp.point for kp in grade.key_points] == list(shipped_catalog.bites[BITE].point_texts)
    for kp in grade.key_points:
        assert (kp.status == "missing") == (kp.evidence is None)
        assert kp.evidence is None or kp.evidence.lower() in ANSWER.lower()
    assert 0 <= grade.score <= 4
