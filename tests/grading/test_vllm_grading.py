"""One grading end to end through the real local vLLM (SmolLM2-135M: a plumbing check,
not a judge, so the test asserts the contract and the quote checks, not the score)."""

import pytest

from coach.config import load_settings

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


async def test_one_grading_through_the_local_vllm(vllm_server, shipped_catalog, shipped_topics, embedding_judge):
    client = make_llm_client(vllm_server, timeout_s=300.0)
    await client.start()
    try:
        # The shipped cap: a verdict for this 7-point bite does not fit in 256 tokens.
        grader = make_grader(shipped_catalog, shipped_topics, embedding_judge, client,
                             max_tokens=load_settings(_env_file=None).llm_max_tokens)
        grade = await grader.grade(ANSWER, BITE)
    finally:
        await client.aclose()
    assert grade.grader == "llm"  # a fallback here means the real structured call failed
    assert [kp.point for kp in grade.key_points] == list(shipped_catalog.bites[BITE].point_texts)
    for kp in grade.key_points:
        assert (kp.status == "missing") == (kp.evidence is None)
        assert kp.evidence is None or kp.evidence.lower() in ANSWER.lower()
    assert 0 <= grade.score <= 4
