"""The real bot process with its LLM misbehaving (a scripted OpenAI-compatible server,
tests/serving/fake_llm.py): slow past the timeout, 500s, garbage, JSON that fails the
schema, a connection dropped mid-reply. `/explain` always answers within Discord's 3
seconds, says when the grade came from the fallback grader, stores each attempt once;
the breaker opens (the LLM is not called) and closes again once the LLM is healthy."""

import asyncio

import pytest

from content import default_catalog
from tests.fakediscord.records import RESPONSE_DEFER
from tests.reliability.conftest import Bots
from tests.serving.fake_llm import FakeLLMServer, die, ok, raw, slow, status

BITE = "kv-cache"
LLM_LABEL, FALLBACK_LABEL = "Graded by the LLM grader", "fallback embedding grader"
COOLDOWN_S = 4.0


def healthy_verdict(answer: str, n_points: int) -> dict:
    quote = " ".join(answer.split()[:8])  # a real quote from the answer, so it counts
    return {"key_points": [{"status": "covered", "quote": quote}] * n_points, "purpose": False, "purpose_quote": "",
            "mechanism": True, "mechanism_quote": quote, "on_topic": True, "other_concept": "",
            "red_flag": "no", "red_flag_quote": "", "injection": False}


async def qualified_in_advance(database_url: str, llm_url: str) -> None:
    """Store a "qualified" verdict for the fake model, as an earlier run would have: this test is
    about faults on the LLM path, which only a qualified model takes (tests/grading/test_qualification.py
    covers qualification itself)."""
    from types import SimpleNamespace

    from coach.config import load_settings
    from coach.grading.fit import load_fit
    from coach.grading.llm_judge import LLMJudge
    from coach.grading.qualification import Qualification
    from coach.grading.qualifier import key_for, save
    from coach.store import Store
    from tests.grading.conftest import make_llm_client

    async with make_llm_client(llm_url) as client:
        judge = LLMJudge(client, max_tokens=load_settings(_env_file=None).llm_max_tokens)
        key = await key_for(SimpleNamespace(llm_judge=judge, catalog=default_catalog(), fit=load_fit(),
                                            cpu_label="embedding"))
    async with Store(database_url) as store:
        await store.upgrade()
        await save(store, key, Qualification("qualified", key.model_id))


@pytest.fixture
async def llm():
    server = await FakeLLMServer().start()
    yield server
    await server.stop()


async def submit(fake, user, guild, answer: str) -> tuple[str, str]:
    """Answer through the modal; returns (interaction id, the grade's footer)."""
    record = await fake.submit(user, f"m:{BITE}", {"answer": answer}, guild=guild)
    assert await record.acknowledged(timeout=5) == RESPONSE_DEFER, "grading is deferred at once"
    assert record.first_response_latency < 3.0
    reply = await fake.reply(record, timeout=60)
    assert reply["embeds"] and reply["embeds"][0]["title"].startswith("Score "), reply.get("content")
    return record.id, reply["embeds"][0]["footer"]["text"]


@pytest.mark.timeout(420)  # the model load it waits for may take minutes on a busy machine
async def test_explain_survives_every_llm_fault_and_the_breaker_recovers(fake, tmp_path, shared_data_dir, llm):
    bite = default_catalog().bites[BITE]
    answer = bite.model_answer
    llm.default = ok(healthy_verdict(answer, len(bite.key_points)))
    bots = Bots(fake, tmp_path, shared_data_dir)
    bots.env.update(LLM_BASE_URL=llm.base_url, LLM_TIMEOUT_S="1.5", LLM_MAX_RETRIES="0",
                    LLM_BREAKER_FAILURES="2", LLM_BREAKER_COOLDOWN_S=str(COOLDOWN_S), EXPLAIN_RATE_LIMIT="50")
    guild, user = fake.add_guild(), fake.add_user("grace")
    labels: dict[str, str] = {}
    await qualified_in_advance(bots.env["DATABASE_URL"], llm.base_url)
    try:
        bot = await bots.start()
        await bots.models_loaded(bot)  # loading is the slow part of a first grading, not what is tested here

        async def grade(expected: str, why: str) -> None:
            interaction, footer = await submit(fake, user, guild, answer)
            assert expected in footer, f"{why}: {footer!r}"
            labels[interaction] = "llm" if expected == LLM_LABEL else "embedding"

        await grade(LLM_LABEL, "a healthy LLM grades")
        llm.then(slow(5.0))
        await grade(FALLBACK_LABEL, "slow past the timeout")
        llm.then(status(500))
        await grade(FALLBACK_LABEL, "a 500")  # second failure in a row: the breaker opens
        calls = llm.count("/v1/chat/completions")
        await grade(FALLBACK_LABEL, "breaker open")
        assert llm.count("/v1/chat/completions") == calls, "an open breaker does not call the LLM"

        await asyncio.sleep(COOLDOWN_S + 0.5)
        await grade(LLM_LABEL, "after the cool-down a trial succeeds and the breaker closes")
        await grade(LLM_LABEL, "closed again")

        for fault, why in [(raw(b"<html>502 Bad Gateway</html>"), "not JSON"),
                           (ok({"key_points": [], "verdict": "great"}), "JSON that fails the schema"),
                           (die(), "connection dropped mid-reply")]:
            llm.then(fault)
            await grade(FALLBACK_LABEL, why)

        stored = dict(bots.query("SELECT attempt_key, grader FROM attempts"))
        assert len(stored) == len(labels), "one attempt per submission, none twice"
        assert {key.split(":")[0]: grader for key, grader in stored.items()} == labels, \
            "each stored grader matches what the user was told"
        xp = bots.query("SELECT COUNT(*), COUNT(DISTINCT source_key) FROM xp_events")
        assert xp[0][0] == xp[0][1] <= len(labels)
        bots.assert_no_errors_logged()
    finally:
        await bots.stop_all()
