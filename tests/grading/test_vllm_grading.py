"""One grading end to end through the real local vLLM (SmolLM2-135M: a plumbing check,
not a judge, so the test asserts the contract and the quote checks, not the score)."""

import pytest

from coach.config import load_settings

from tests.fixtures.vllm import SETUP_TIMEOUT_S
from tests.grading.conftest import make_grader, make_llm_client

# On a bare machine the first vLLM test also installs and starts the server.
pytestmark = [pytest.mark.vllm, pytest.mark.timeout(SETUP_TIMEOUT_S)]

ANSWER = (
    "Readiness decides whether the pod gets traffic: if it fails, the pod leaves the load balancer but keeps "
    "running. A failing liveness probe restarts the container. Readiness should pass only after the model is loaded."
)


async def test_one_grading_through_the_local_vllm(vllm_server, shipped_catalog, shipped_topics, embedding_judge):
    client = make_llm_client(vllm_server, timeout_s=300.0)
    await client.start()
    try:
        # The shipped cap: a verdict for this 7-point bite does not fit in 256 tokens.
        grader = make_grader(shipped_catalog, shipped_topics, embedding_judge, client,
                             max_tokens=load_settings(_env_file=None).llm_max_tokens)
        grade = await grader.grade(ANSWER, "readiness-vs-liveness")
    finally:
        await client.aclose()
    assert grade.grader == "llm"  # a fallback here means the real structured call failed
    assert [kp.point for kp in grade.key_points] == list(shipped_catalog.bites["readiness-vs-liveness"].point_texts)
    for kp in grade.key_points:
        assert (kp.status == "missing") == (kp.evidence is None)
        assert kp.evidence is None or kp.evidence.lower() in ANSWER.lower()
    assert 0 <= grade.score <= 4
