"""The bot, through the fake Discord, with the real local vLLM behind it (SmolLM2-135M: it only
proves the plumbing, and it cannot judge). The model must not grade members: the first /explain
is graded by the CPU judge while the model qualifies in the background, qualification disqualifies
it, /healthz says so with the figures, and members keep getting the CPU judge's grade. The bot
runs the shipped catalog here: qualification grades answers on the shipped bites."""

import asyncio
import time

import pytest

from bot.discord.client import readiness_for
from bot.render.messages import GRADER_NOTES
from tests.e2e.conftest import Harness
from tests.fakediscord.records import RESPONSE_DEFER
from tests.fixtures.vllm import SETUP_TIMEOUT_S

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(SETUP_TIMEOUT_S + 900)]

def by_cpu(embed: dict) -> bool:
    """The footer is one of the CPU judges' notes, never the LLM grader's."""
    return embed["footer"]["text"] in {GRADER_NOTES[judge] for judge in ("embedding", "combined", "trained")}

ANSWER = ("The KV cache keeps each layer's keys and values for the tokens already processed, so a decode step "
          "computes them only for the new token; the cost is memory that grows with context length and batch size.")


async def explain(fake, user, guild) -> dict:
    record = await fake.submit(user, "m:kv-cache", {"answer": ANSWER}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER and record.first_response_latency < 3.0, "deferred at once"
    return (await fake.reply(record, timeout=600.0))["embeds"][0]


async def test_the_local_model_is_disqualified_and_never_grades_a_member(fake, settings, shipped_catalog,
                                                                         shipped_topics, vllm_server):
    harness = Harness(fake, settings, shipped_catalog, shipped_topics)
    try:
        bot = await harness.start(llm_base_url=vllm_server, llm_timeout_s=600.0, llm_max_retries=0)
        guild, carol = fake.add_guild(), fake.add_user("carol")
        embed = await explain(fake, carol, guild)
        assert embed["title"].startswith("Score ") and "Graded against **The KV cache**" in embed["description"]
        assert by_cpu(embed), "an unqualified model's grade never reaches a member"

        deadline = time.monotonic() + 900
        while bot.services.llm_status()["state"] == "qualifying" and time.monotonic() < deadline:
            await asyncio.sleep(2)
        status = (await readiness_for(bot, bot.services).report())["llm_judge"]
        assert status["state"] == "disqualified", status
        assert status["reasons"] and status["llm"]["answers"] == status["cpu"]["answers"] > 0
        assert by_cpu(await explain(fake, carol, guild))
    finally:
        await harness.stop_all()
