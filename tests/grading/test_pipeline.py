"""The grading pipeline end to end on the embedding grader (real model, demo catalog)."""

from sqlalchemy import select

from coach.config import load_settings
from coach.engine import Coach
from coach.grading import attempt_reader
from coach.grading.models import Grade, GradeError, OffTopic
from coach.store.models import Attempt
from coach.store.store import Store

CONTRACT_KEYS = {
    "bite_id", "title", "score", "key_points", "red_flag", "injection", "grader",
    "feedback", "model_answer", "follow_up", "truncated",
    # additive: a mistake that may be there, the purpose stated, which scale/rubric/grader scored it
    "red_flag_possible", "purpose", "scale_version", "rubric_version", "grader_version",
    # additive (#18): typed or spoken; for a spoken answer its transcript and delivery figures (else null)
    "input", "transcript", "delivery",
    # additive (#27): a list of terms (0), a neighbouring concept (0) and the bite it seems to explain
    "buzzword_list", "other_concept", "explains",
}

STRONG_KV = (
    "When the model generates, it produces one token per step, and each new token attends over all the earlier "
    "ones. Attention is causal, so the keys and values of earlier tokens never change once computed; we store "
    "them for every layer instead of recomputing the prefix. Each decode step then only computes the projections "
    "of the newest token and attends over the cached keys and values. The cost is GPU memory, which grows with "
    "the sequence length and with the number of sequences served at once."
)


async def test_strong_answer_scores_high_with_the_contract_shape(demo_grader):
    grade = await demo_grader.grade(STRONG_KV, "kv-cache")
    assert isinstance(grade, Grade)
    body = grade.to_json()
    assert set(body) == CONTRACT_KEYS
    assert body["grader"] == "embedding" and body["truncated"] is False
    assert body["input"] == "text" and body["transcript"] is None and body["delivery"] is None
    assert body["score"] >= 3 and body["red_flag"] is False and body["injection"] is False
    bite = demo_grader.catalog.bites["kv-cache"]
    assert [kp["point"] for kp in body["key_points"]] == list(bite.point_texts)
    assert [kp["kind"] for kp in body["key_points"]] == [p.kind for p in bite.key_points]
    for kp in body["key_points"]:
        assert kp["status"] in {"covered", "partial", "missing", "wrong"}
        assert kp["evidence"] is None or kp["evidence"] in STRONG_KV  # evidence is always a span of the answer
        assert kp["evidence"] is None or len(kp["evidence"]) < len(STRONG_KV) / 2  # the phrase, not the answer
    assert body["model_answer"].startswith("Generation is one token at a time")
    assert body["scale_version"] == 2 and body["rubric_version"] and body["grader_version"] == f"{demo_grader.fit.version}+net:{attempt_reader.load().fitted_on['data'][:8]}+ft"
    assert not any(point in body["feedback"] for point in bite.point_texts)  # the fields list them, not the text


async def test_vague_answer_scores_low_and_probes_the_first_core_point(demo_grader):
    grade = await demo_grader.grade("It is an optimization that makes things faster in production.", "kv-cache")
    bite = demo_grader.catalog.bites["kv-cache"]
    assert grade.score <= 1
    missed = [p for p, v in zip(bite.key_points, grade.key_points) if v.status != "covered"]
    assert grade.follow_up == missed[0].follow_up and missed[0].kind == "core"
    assert missed[0].coaching in grade.feedback


async def test_red_flag_answer_is_flagged(demo_grader):
    grade = await demo_grader.grade(
        "The KV cache is a response cache: when a user repeats a prompt, the server returns the saved response "
        "instead of running the model again.",
        "kv-cache",
    )
    assert grade.red_flag or grade.red_flag_possible
    assert "mistake interviewers listen for" in grade.feedback
    assert grade.score <= 1


async def test_bite_is_retrieved_when_none_is_given(demo_grader):
    grade = await demo_grader.grade(
        "The readiness probe should only pass once the model has finished loading, so the load balancer never "
        "sends traffic to a pod that cannot answer yet."
    )
    assert isinstance(grade, Grade) and grade.bite_id == "readiness-vs-liveness"
    assert grade.score >= 1 and grade.red_flag is False


async def test_retrieval_runs_once_and_its_runners_up_come_with_the_grade(demo_grader, monkeypatch):
    calls = []
    find = demo_grader.topics.find
    monkeypatch.setattr(demo_grader.topics, "find", lambda *a, **k: calls.append(a) or find(*a, **k))
    grade = await demo_grader.grade(STRONG_KV)
    assert isinstance(grade, Grade) and grade.bite_id == "kv-cache" and len(calls) == 1
    assert grade.alternatives and all(alt.bite_id != "kv-cache" for alt in grade.alternatives)
    assert "alternatives" not in grade.to_json()  # not part of the contract
    assert (await demo_grader.grade(STRONG_KV, "kv-cache")).alternatives == ()  # a chosen bite has none


async def test_off_topic_answer_gets_suggestions_not_a_grade(demo_grader):
    result = await demo_grader.grade("My favourite pasta uses garlic, olive oil and lots of parsley.")
    assert isinstance(result, OffTopic)
    body = result.to_json()
    assert body["off_topic"] is True and set(body) == {"off_topic", "suggestions"}
    assert body["suggestions"] and all(set(s) == {"bite_id", "title", "score"} for s in body["suggestions"])


async def test_empty_answers_get_a_polite_error_not_an_exception(demo_grader):
    for answer in ("", "   \n ", "\x00\x01\u200b", None):
        result = await demo_grader.grade(answer, "kv-cache")
        assert isinstance(result, GradeError) and result.error == "empty_answer"
        assert "empty" in result.message


async def test_unknown_bite_is_an_error_result(demo_grader):
    result = await demo_grader.grade("Keys and values are cached.", "no-such-bite")
    assert isinstance(result, GradeError) and result.error == "unknown_bite"


async def test_twenty_thousand_characters_are_cut_graded_and_flagged(demo_grader):
    answer = (STRONG_KV + " ") * 40
    grade = await demo_grader.grade(answer[:20000], "kv-cache")
    assert isinstance(grade, Grade) and grade.truncated is True
    assert grade.score >= 3
    assert all(kp.evidence is None or kp.evidence in answer for kp in grade.key_points)


async def test_follow_up_probes_the_most_important_gap_or_moves_on(demo_grader):
    from coach.grading.feedback import follow_up_question
    from coach.grading.models import KeyPointVerdict

    bite, catalog = demo_grader.catalog.bites["kv-cache"], demo_grader.catalog

    def verdicts(*statuses):
        return [KeyPointVerdict(point=p.point, kind=p.kind, status=s) for p, s in zip(bite.key_points, statuses)]

    everything = verdicts("covered", "covered", "covered", "covered")
    assert follow_up_question(bite, everything, catalog, injection=False) == catalog.bites["quantization-basics"].prompt
    depth_loose_core_missing = verdicts("covered", "missing", "partial", "missing")
    assert follow_up_question(bite, depth_loose_core_missing, catalog, injection=False) == bite.key_points[1].follow_up
    wrong_depth = verdicts("covered", "covered", "missing", "wrong")
    assert follow_up_question(bite, wrong_depth, catalog, injection=False) == bite.key_points[3].follow_up


async def test_grade_and_record_stores_the_attempt_without_text_by_default(demo_grader, demo_catalog, tmp_path):
    async with Store(f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}") as store:
        await store.upgrade()
        coach = Coach(store, demo_catalog, load_settings(_env_file=None))
        grade = await demo_grader.grade_and_record(coach.progress, 11, 22, STRONG_KV, "kv-cache", attempt_key="a-1")
        again = await demo_grader.grade_and_record(coach.progress, 11, 22, STRONG_KV, "kv-cache", attempt_key="a-1")
        empty = await demo_grader.grade_and_record(coach.progress, 11, 22, "   ", "kv-cache")

        async def attempts(db):
            return (await db.execute(select(Attempt))).scalars().all()

        rows = await store.read(attempts)
    assert isinstance(empty, GradeError)
    assert again.score == grade.score
    assert len(rows) == 1  # the retry with the same key and the empty answer stored nothing
    row = rows[0]
    assert (row.user_id, row.guild_id, row.bite_id, row.score, row.grader) == (11, 22, "kv-cache", grade.score, "embedding")
    assert row.answer_text is None and row.latency_ms >= 0
    assert (row.scale_version, row.rubric_version, row.grader_version) == (2, grade.rubric_version, grade.grader_version)


async def test_each_grading_is_timed_by_the_judge_that_graded_it(demo_grader):
    """`coach_grading_seconds{grader}`: answers, follow-ups and input that graded nothing."""
    from prometheus_client import REGISTRY

    def count(grader):
        return REGISTRY.get_sample_value("coach_grading_seconds_count", {"grader": grader}) or 0.0

    embedding, nothing = count("embedding"), count("none")
    await demo_grader.grade(STRONG_KV, "kv-cache")
    await demo_grader.grade("   ", "kv-cache")
    assert count("embedding") == embedding + 1 and count("none") == nothing + 1
    graded = await demo_grader.grade_point("the keys and values of earlier tokens are stored per layer", "kv-cache", 0)
    assert graded.grader == "embedding" and count("embedding") == embedding + 2, "a follow-up is timed too"
