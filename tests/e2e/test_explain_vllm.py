"""The bot, through the fake Discord, with the real local vLLM behind it (SmolLM2-135M: it only
proves the plumbing, and it cannot judge). The model must not grade members: the first /explain
is graded by the CPU judge while the model qualifies in the background, qualification disqualifies
it, /healthz says so with the figures, and members keep getting the CPU judge's grade."""

import asyncio
import time

import pytest

from bot.discord.client import readiness_for
from tests.e2e.test_explain import GOOD_ANSWER
from tests.fakediscord.records import RESPONSE_DEFER
from tests.fixtures.vllm import SETUP_TIMEOUT_S

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(SETUP_TIMEOUT_S + 900)]
CPU_FOOTER = "Graded by the fallback embedding grader"


async def explain(fake, user, guild) -> dict:
    record = await fake.submit(user, "m:kv-cache", {"answer": GOOD_ANSWER}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER and record.first_response_latency < 3.0, "deferred at once"
    return (await fake.reply(record, timeout=600.0))["embeds"][0]


async def test_the_local_model_is_disqualified_and_never_grades_a_member(harness, fake, vllm_server):
    bot = await harness.start(llm_base_url=vllm_server, llm_timeout_s=600.0, llm_max_retries=0)
    guild, carol = fake.add_guild(), fake.add_user("carol")
    embed = await explain(fake, carol, guild)
    assert embed["title"].startswith("Score ") and "Graded against **The KV cache**" in embed["description"]
    assert embed["footer"]["text"].startswith(CPU_FOOTER), "an unqualified model's grade never reaches a member"

    deadline = time.monotonic() + 900
    while bot.services.llm_status()["state"] == "qualifying" and time.monotonic() < deadline:
        await asyncio.sleep(2)
    status = (await readiness_for(bot, bot.services).report())["llm_judge"]
    assert status["state"] == "disqualified", status
    assert status["reasons"] and status["llm"]["answers"] == status["cpu"]["answers"] > 0
    assert (await explain(fake, carol, guild))["footer"]["text"].startswith(CPU_FOOTER)
