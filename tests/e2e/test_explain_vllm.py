"""The bot, through the fake Discord, grades an /explain answer with the real local vLLM
(SmolLM2-135M, a plumbing check: the test asserts that the grade came through the LLM path
and reached the member whole, not what it scored)."""

import pytest

from tests.e2e.test_explain import GOOD_ANSWER
from tests.fakediscord.records import RESPONSE_DEFER
from tests.fixtures.vllm import SETUP_TIMEOUT_S

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(SETUP_TIMEOUT_S)]


async def test_explain_is_graded_through_the_local_vllm(harness, fake, vllm_server):
    await harness.start(llm_base_url=vllm_server, llm_timeout_s=600.0, llm_max_retries=0)
    guild, carol = fake.add_guild(), fake.add_user("carol")
    record = await fake.submit(carol, "m:kv-cache", {"answer": GOOD_ANSWER}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER and record.first_response_latency < 3.0, "deferred at once"
    reply = await fake.reply(record, timeout=600.0)
    embed = reply["embeds"][0]
    assert embed["title"].startswith("Score ") and "Graded against **The KV cache**" in embed["description"]
    assert embed["footer"]["text"] == "Graded by the LLM grader.", "the served model answered, and says so"
    fields = {f["name"] for f in embed["fields"]}
    assert "Model answer" in fields and "Follow-up an interviewer would ask" in fields
