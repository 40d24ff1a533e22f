"""The LLM path against a local fake OpenAI-compatible server (tests/serving/fake_llm.py):
verified quotes, the request it sends, and the fallback to the embedding grader."""

import json
import socket

from sqlalchemy import func, select

from coach.config import load_settings
from coach.engine import Coach
from coach.grading.models import Grade
from coach.store import Store
from coach.store.models import Attempt
from coach.grading.prompt import STATIC_PREFIX
from tests.grading.conftest import make_grader, make_llm_client
from tests.serving.fake_llm import ok, raw, status

ANSWER = (
    "We keep the keys and values of all earlier tokens at every layer. Each step only projects the newest "
    "token and attends over what is cached. It costs memory that grows with the context."
)


def verdict(*points, red_flag="no", red_flag_quote="", injection=False, purpose=False, purpose_quote="",
            mechanism=True, on_topic=True, other_concept="") -> dict:
    quoted = [q for s, q in points if q and s != "missing"]
    return {
        "key_points": [{"status": s, "quote": q} for s, q in points],
        "purpose": purpose, "purpose_quote": purpose_quote,
        "mechanism": mechanism, "mechanism_quote": quoted[0] if quoted and mechanism else "",
        "on_topic": on_topic, "other_concept": other_concept,
        "red_flag": red_flag, "red_flag_quote": red_flag_quote, "injection": injection,
    }


async def llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge, **client_options):
    client = make_llm_client(fake_llm.base_url, **client_options)
    await client.start()
    return client, make_grader(demo_catalog, demo_topics, embedding_judge, client, max_tokens=200)


async def test_verified_llm_verdicts_are_scored_in_code(fake_llm, demo_catalog, demo_topics, embedding_judge):
    fake_llm.default = ok(verdict(
        ("covered", "keep the keys and values of all earlier tokens at every layer"),
        ("covered", "Each step only projects the newest token and attends over what is cached"),
        ("missing", ""),
        ("partial", "It costs memory that grows with the context"),
    ))
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge)
    try:
        grade = await grader.grade(ANSWER, "kv-cache")
    finally:
        await client.aclose()
    assert grade.grader == "llm"
    statuses = ["covered", "covered", "missing", "partial"]
    assert [kp.status for kp in grade.key_points] == statuses
    assert grade.score == 4  # both core points landed: the depth points are what a senior adds
    assert grade.key_points[0].evidence == "keep the keys and values of all earlier tokens at every layer"
    assert grade.grader_version.startswith("grader:")  # the served model and the prompt's id


async def test_a_possible_red_flag_warns_without_capping(fake_llm, demo_catalog, demo_topics, embedding_judge):
    fake_llm.default = ok(verdict(
        ("covered", "keep the keys and values of all earlier tokens at every layer"),
        ("covered", "Each step only projects the newest token and attends over what is cached"),
        ("missing", ""), ("missing", ""),
        red_flag="possible", red_flag_quote="It costs memory that grows with the context",
    ))
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge)
    try:
        grade = await grader.grade(ANSWER, "kv-cache")
    finally:
        await client.aclose()
    assert (grade.red_flag, grade.red_flag_possible, grade.score) == (False, True, 4)
    assert "This may be the mistake interviewers listen for" in grade.feedback
    assert "Careful, this is the mistake" not in grade.feedback


async def test_request_is_schema_constrained_deterministic_and_prefix_first(fake_llm, demo_catalog, demo_topics, embedding_judge):
    fake_llm.default = ok(verdict(*[("missing", "")] * 4))
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge)
    try:
        await grader.grade(ANSWER, "kv-cache")
        await grader.grade("Another answer about keys and values being cached.", "kv-cache")
    finally:
        await client.aclose()
    first, second = fake_llm.bodies
    assert first["temperature"] == 0.0 and first["max_tokens"] == 200
    schema = first["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["key_points"]["minItems"] == 4
    assert first["messages"][0] == second["messages"][0] == {"role": "system", "content": STATIC_PREFIX}
    user = first["messages"][-1]["content"]
    assert user.rstrip().endswith("Return the JSON verdict.") and ANSWER in user
    assert user.index("KEY POINTS") < user.index(ANSWER)


async def test_fabricated_quotes_count_for_nothing(fake_llm, demo_catalog, demo_topics, embedding_judge):
    """A model that claims everything is covered, quoting text the answer does not contain."""
    fake_llm.default = ok(verdict(*[("covered", "a brilliant and complete explanation")] * 4))
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge)
    try:
        grade = await grader.grade("Caching is good for speed, I think.", "kv-cache")
    finally:
        await client.aclose()
    assert grade.grader == "llm"
    assert [kp.status for kp in grade.key_points] == ["missing"] * 4
    assert grade.score == 0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_llm_down_falls_back_to_the_embedding_grader(demo_catalog, demo_topics, embedding_judge):
    client = make_llm_client(f"http://127.0.0.1:{closed_port()}/v1")
    await client.start()
    try:
        grader = make_grader(demo_catalog, demo_topics, embedding_judge, client)
        grade = await grader.grade(ANSWER, "kv-cache")
    finally:
        await client.aclose()
    assert isinstance(grade, Grade) and grade.grader == "embedding"
    assert grade.score >= 2


async def test_server_errors_bad_json_and_schema_violations_fall_back(fake_llm, demo_catalog, demo_topics, embedding_judge):
    fake_llm.then(
        status(500),
        raw(b"<html>bad gateway</html>"),
        ok("this is not json"),
        ok({"key_points": [{"status": "excellent"}], "red_flag": "perhaps"}),
        ok(json.dumps(verdict(*[("covered", "x")] * 4))[:40], finish_reason="length"),
    )
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge, breaker_failures=100)
    try:
        grades = [await grader.grade(ANSWER, "kv-cache") for _ in range(5)]
    finally:
        await client.aclose()
    assert [g.grader for g in grades] == ["embedding"] * 5
    assert len(fake_llm.bodies) == 5


NEIGHBOUR = ("Speculative decoding runs a small draft model to propose a few tokens, then the large model checks "
             "them all in one forward pass and keeps the longest prefix it agrees with.")


async def test_a_neighbouring_concept_scores_zero_offers_that_bite_and_is_not_recorded(
        fake_llm, shipped_catalog, shipped_topics, embedding_judge, tmp_path):
    points = len(shipped_catalog.bites["kv-cache"].key_points)
    fake_llm.default = ok(verdict(*[("covered", "keeps the longest prefix it agrees with")] * points,
                                  on_topic=False, other_concept="speculative decoding"))
    client = make_llm_client(fake_llm.base_url)
    await client.start()
    try:
        async with Store(f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}") as store:
            await store.upgrade()
            coach = Coach(store, shipped_catalog, load_settings(_env_file=None))
            grader = make_grader(shipped_catalog, shipped_topics, embedding_judge, client)
            grade = await grader.grade_and_record(coach.progress, 5, 6, NEIGHBOUR, "kv-cache", "k1")
            stored = await store.read(lambda db: db.scalar(select(func.count()).select_from(Attempt)))
    finally:
        await client.aclose()
    assert isinstance(grade, Grade) and grade.score == 0 and grade.off_topic
    assert grade.explains.bite_id == "speculative-decoding" and grade.alternatives[0].bite_id == "speculative-decoding"
    assert f"This explains **{grade.explains.title}**, not **The KV cache**" in grade.feedback
    assert stored == 0, "the attempt goes to the bite it is finally graded as"


async def test_a_list_of_terms_and_wrong_points_are_capped(fake_llm, demo_catalog, demo_topics, embedding_judge):
    client, grader = await llm_grader(fake_llm, demo_catalog, demo_topics, embedding_judge)
    answer = ("The cache keeps the keys and values of earlier tokens. Each step only processes the new token. "
              "It costs memory that grows with the sequence. It makes the queries reusable too.")
    bite = demo_catalog.bites["kv-cache"]
    kinds = [p.kind for p in bite.key_points]
    quotes = ["The cache keeps the keys and values of earlier tokens", "Each step only processes the new token",
              "It costs memory that grows with the sequence", "It makes the queries reusable too"]
    try:
        core_wrong = [("wrong" if k == "core" and i == 0 else "covered", quotes[i % 4]) for i, k in enumerate(kinds)]
        fake_llm.default = ok(verdict(*core_wrong))
        capped_core = await grader.grade(answer, "kv-cache")
        depth_wrong = [("wrong" if k == "depth" else "covered", quotes[i % 4]) for i, k in enumerate(kinds)]
        fake_llm.default = ok(verdict(*depth_wrong))
        capped_depth = await grader.grade(answer, "kv-cache")
        fake_llm.default = ok(verdict(*[("partial", quotes[0])] * len(kinds), mechanism=False))
        soup = await grader.grade(answer, "kv-cache")
    finally:
        await client.aclose()
    assert capped_core.score == 1 and "The central claim" in capped_core.feedback
    assert "You said “The cache keeps the keys and values of earlier tokens”" in capped_core.feedback
    if "depth" in kinds:
        assert capped_depth.score == 3
    assert soup.score == 0 and soup.keyword_soup and "list of terms" in soup.feedback
