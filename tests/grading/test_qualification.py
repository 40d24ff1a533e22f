"""A served model grades members only once it has qualified (issue #30): the floors and the
comparison with the CPU judge, a fake OpenAI-compatible server with poor verdicts (disqualified,
never reaches a member), one replaying the reference judge's verdicts on the qualification set
(qualified), the stored verdict reused across a restart and invalidated by a new model or prompt."""

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from coach.grading import qualification, qualifier
from coach.grading.cleaning import clean_answer
from coach.grading.llm_judge import LLMJudge
from coach.grading.qualification import Figures, decide, load_items
from coach.grading.qualifier import Key, Qualifier, key_for
from coach.store import Store
from tests.grading.conftest import make_grader, make_llm_client
from tests.serving.fake_llm import answering, status

REFERENCE = Path(__file__).parents[1] / "data" / "reference_judge" / "qualification.jsonl"
DEV = Path(__file__).parents[1] / "data" / "grading_blind_dev.jsonl"
PROBE_DEV = Path(__file__).parents[1] / "data" / "injection_probe_dev.jsonl"
STRONG = ("The KV cache keeps the attention keys and values of earlier tokens for every layer, so each decode step "
          "only computes the key and value for the newest token instead of re-running the whole prefix.")


def fenced(body: dict) -> str:
    """The candidate's answer as the prompt fences it."""
    user = body["messages"][-1]["content"]
    match = re.search(r"^(=====ANSWER-[0-9a-f]+=====)\n(.*)\n\1$", user, re.S | re.M)
    return match.group(2)


def point_count(body: dict) -> int:
    return body["response_format"]["json_schema"]["schema"]["properties"]["key_points"]["minItems"]


def poor_verdict(body: dict) -> dict:
    """A model that hears nothing: every point missing, no mechanism (every answer scores 0)."""
    return {"key_points": [{"status": "missing", "quote": ""}] * point_count(body), "purpose": False,
            "purpose_quote": "", "mechanism": False, "mechanism_quote": "", "on_topic": True, "other_concept": "",
            "red_flag": "no", "red_flag_quote": "", "injection": False}


def reference_replay():
    """The reference judge's recorded verdicts, found by the answer the prompt fences."""
    by_id = {json.loads(line)["id"]: json.loads(line)["verdict"] for line in REFERENCE.read_text().splitlines()}
    by_answer = {clean_answer(item.answer, 4000).text: by_id[item.id] for item in load_items()}
    return lambda body: by_answer[fenced(body)]


def figures(**changes) -> Figures:
    good = Figures("x", answers=42, failures=0, far_off=1, qwk=0.9, offset=0.05, hard_low=0.95,
                   attempts_held=1.0, honest_flagged=0)
    return replace(good, **changes)


def gauge(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels)


# --- the rule --------------------------------------------------------------------------------


def test_a_model_that_beats_the_cpu_judge_and_the_floors_qualifies():
    assert decide(figures(), figures(qwk=0.75, hard_low=0.9, far_off=4), 42) == (True, [])


@pytest.mark.parametrize("llm, cpu, reason", [
    (figures(far_off=3, failures=2), figures(), "5 answers without a usable verdict"),
    (figures(qwk=0.65), figures(qwk=0.5), "QWK 0.65 below the floor 0.7"),
    (figures(qwk=0.78), figures(qwk=0.8), "QWK 0.78 worse than the CPU judge's 0.8"),
    (figures(offset=-0.6), figures(), "mean offset -0.6 beyond"),
    (figures(hard_low=0.75), figures(hard_low=0.7), "hard kinds at 0-1 0.75 below the floor"),
    (figures(hard_low=0.85), figures(hard_low=0.9), "hard kinds at 0-1 0.85 worse than"),
    (figures(attempts_held=0.75), figures(attempts_held=1.0), "injection attempts held 0.75 worse"),
    (figures(honest_flagged=2), figures(honest_flagged=1), "honest answers called injections 2 worse"),
])
def test_each_shortfall_disqualifies_with_its_reason(llm, cpu, reason):
    qualified, reasons = decide(llm, cpu, 42)
    assert not qualified and any(r.startswith(reason) for r in reasons), reasons


def test_the_qualification_set_is_dev_only_and_holds_every_kind():
    items = load_items()
    dev = {json.loads(line)["id"]: json.loads(line) for line in DEV.read_text().splitlines()}
    probe = {json.loads(line)["id"]: json.loads(line) for line in PROBE_DEV.read_text().splitlines()}
    for item in items:  # gold labels copied from the dev split itself; never a test answer
        source = dev.get(item.id) or probe[item.id]
        assert source["answer"] == item.answer
        assert item.score == source.get("score", item.score) and item.injection == bool(source["injection"])
    kinds = {item.kind for item in items}
    assert {"strong_short", "strong_thorough", "gap", "buzzword", "misconception", "neighbour", "mixed",
            "injection", "honest_lookalike"} <= kinds
    assert 35 <= len(items) <= 60


# --- against servers ---------------------------------------------------------------------------


@pytest.fixture
async def sqlite_store(tmp_path):
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}")
    await store.upgrade()
    yield store
    await store.dispose()


@pytest.fixture
async def client(fake_llm):
    client = make_llm_client(fake_llm.base_url)
    await client.start()
    yield client
    await client.aclose()


def untrusted(shipped_catalog, shipped_topics, embedding_judge, client, **options):
    return make_grader(shipped_catalog, shipped_topics, embedding_judge, client, trust_llm=False, **options)


async def test_until_it_qualifies_members_get_the_cpu_judge(fake_llm, client, shipped_catalog, shipped_topics,
                                                            embedding_judge):
    grader = untrusted(shipped_catalog, shipped_topics, embedding_judge, client)
    grade = await grader.grade(STRONG, "kv-cache")
    assert grader.llm_status.state == "qualifying"
    assert grade.grader == "embedding" and fake_llm.count("/v1/chat/completions") == 0


async def test_a_catalog_without_the_sets_bites_cannot_qualify_a_model(fake_llm, client, sqlite_store, demo_catalog,
                                                                        demo_topics, embedding_judge):
    grader = untrusted(demo_catalog, demo_topics, embedding_judge, client)
    result = await Qualifier(grader, sqlite_store).refresh()
    assert result.state == "disqualified" and "the catalog holds the bites of only" in result.reasons[0]
    assert fake_llm.count("/v1/chat/completions") == 0


async def test_poor_verdicts_are_disqualified_and_never_reach_a_member(fake_llm, client, sqlite_store, shipped_catalog,
                                                                      shipped_topics, embedding_judge):
    fake_llm.default = answering(poor_verdict)
    grader = untrusted(shipped_catalog, shipped_topics, embedding_judge, client)
    result = await Qualifier(grader, sqlite_store).refresh()

    assert result.state == grader.llm_status.state == "disqualified"
    assert any("2+ points from the gold" in reason for reason in result.reasons), result.reasons
    asked = fake_llm.count("/v1/chat/completions")
    assert asked < len(load_items()), "it stops once the verdict cannot change"
    assert result.llm["answers"] == result.cpu["answers"] == asked, "both judges on the same answers"
    assert gauge("coach_llm_judge_state", state="disqualified") == 1.0
    assert gauge("coach_llm_judge_state", state="qualified") == 0.0

    grade = await grader.grade(STRONG, "kv-cache")
    assert grade.grader == "embedding" and fake_llm.count("/v1/chat/completions") == asked
    assert (await qualifier.stored(sqlite_store, await key_for(grader))).state == "disqualified"


async def test_the_reference_judge_qualifies_and_the_verdict_outlives_a_restart(
        fake_llm, client, sqlite_store, shipped_catalog, shipped_topics, embedding_judge):
    fake_llm.default = answering(reference_replay())
    grader = untrusted(shipped_catalog, shipped_topics, embedding_judge, client, max_tokens=1024)
    result = await Qualifier(grader, sqlite_store).refresh()
    assert result.state == "qualified", qualification.table(result)
    assert result.llm["answers"] == len(load_items()) and result.llm["qwk"] >= result.cpu["qwk"]
    asked = fake_llm.count("/v1/chat/completions")

    # A restart: a new grader over the same database reads the verdict and asks the model nothing.
    restarted = untrusted(shipped_catalog, shipped_topics, embedding_judge, client, max_tokens=1024)
    assert (await Qualifier(restarted, sqlite_store).refresh()).state == "qualified"
    assert fake_llm.count("/v1/chat/completions") == asked
    fake_llm.default = answering(poor_verdict)

    # A changed prompt (here its output cap) has no stored verdict.
    recapped = untrusted(shipped_catalog, shipped_topics, embedding_judge, client, max_tokens=512)
    assert await qualifier.stored(sqlite_store, await key_for(recapped)) is None

    # New weights behind the same served name: the model qualifies afresh, and this one fails.
    fake_llm.root = "/models/another-checkpoint"
    result = await Qualifier(restarted, sqlite_store).refresh()
    assert fake_llm.count("/v1/chat/completions") > asked
    assert result.state == restarted.llm_status.state == "disqualified"
    assert (await restarted.grade(STRONG, "kv-cache")).grader == "embedding"


async def test_an_outage_mid_run_is_no_verdict(fake_llm, client, sqlite_store, shipped_catalog, shipped_topics,
                                               embedding_judge):
    fake_llm.default = answering(reference_replay())
    fake_llm.then(*[answering(reference_replay())] * 3, status(503))
    grader = untrusted(shipped_catalog, shipped_topics, embedding_judge, client)
    with pytest.raises(qualification.Interrupted):
        await Qualifier(grader, sqlite_store).refresh()
    assert grader.llm_status.state == "qualifying", "an outage says nothing about the model"
    assert await qualifier.stored(sqlite_store, await key_for(grader)) is None


async def test_a_second_process_waits_for_the_running_qualification(monkeypatch, fake_llm, client, sqlite_store,
                                                                    shipped_catalog, shipped_topics, embedding_judge):
    monkeypatch.setattr(qualifier, "WAIT_POLL_S", 0.05)
    grader = untrusted(shipped_catalog, shipped_topics, embedding_judge, client)
    key = await key_for(grader)
    assert await sqlite_store.claim_state(qualifier.CLAIM_KIND, key.text, {}, qualifier.CLAIM_TTL, owner="other:1")
    waiting = asyncio.create_task(Qualifier(grader, sqlite_store).refresh())
    await asyncio.sleep(0.2)
    assert not waiting.done() and grader.llm_status.state == "qualifying"
    verdict = qualification.Qualification("qualified", key.model_id, [], {}, {}, 42)
    await qualifier.save(sqlite_store, key, verdict)
    assert (await asyncio.wait_for(waiting, 5)).state == "qualified"
    assert fake_llm.count("/v1/chat/completions") == 0, "the second process ran nothing itself"


async def test_the_stored_verdict_is_keyed_by_model_prompt_and_rubric(store):
    key = Key("grader#1234abcd", "p" * 16, "r" * 16)
    assert await qualifier.stored(store, key) is None
    await qualifier.save(store, key, qualification.Qualification("disqualified", key.model_id, ["QWK low"], {}, {}, 42))
    await qualifier.save(store, key, qualification.Qualification("qualified", key.model_id, [], {"qwk": 0.9}, {}, 42))
    found = await qualifier.stored(store, key)
    assert (found.state, found.llm) == ("qualified", {"qwk": 0.9}), "a rerun replaces the verdict"
    for other in (Key("grader#99999999", key.prompt_hash, key.rubric_version),
                  Key(key.model_id, "q" * 16, key.rubric_version), Key(key.model_id, key.prompt_hash, "s" * 16)):
        assert await qualifier.stored(store, other) is None
