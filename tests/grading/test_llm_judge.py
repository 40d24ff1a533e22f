"""The LLM judge's checks that do not need a server: quote verification, the schema, the prompt."""

from types import SimpleNamespace

import pytest

from coach.grading.llm_judge import LLMJudge, verdict_schema, verify
from coach.grading.quotes import find_quote
from coach.grading.prompt import STATIC_PREFIX

ANSWER = "The KV cache keeps  the keys and values\nof earlier tokens, so each step is cheaper."


@pytest.mark.parametrize(
    "quote, expected",
    [
        ("keeps the keys and values of earlier tokens", "keeps  the keys and values\nof earlier tokens"),
        ("THE KV CACHE KEEPS", "The KV cache keeps"),
        ('"so each step is cheaper."', "so each step is cheaper"),
        ("the keys … of earlier tokens", None),  # an elision is not a quote
        ("keeps the weights", None),
        ("the", None),  # too short to prove anything
        ("", None),
        (None, None),
    ],
)
def test_find_quote(quote, expected):
    assert find_quote(quote, ANSWER) == expected


def _raw(points, red_flag="no", red_flag_quote="", injection=False, purpose=False, purpose_quote="",
         mechanism=True, mechanism_quote="", on_topic=True):
    return SimpleNamespace(
        key_points=[SimpleNamespace(status=s, quote=q) for s, q in points],
        red_flag=red_flag, red_flag_quote=red_flag_quote, injection=injection,
        purpose=purpose, purpose_quote=purpose_quote, mechanism=mechanism, mechanism_quote=mechanism_quote,
        on_topic=on_topic, other_concept="",
    )


def test_unverifiable_quotes_become_missing(demo_catalog):
    bite = demo_catalog.bites["kv-cache"]
    raw = _raw([
        ("covered", "keeps the keys and values of earlier tokens"),  # real quote: kept
        ("covered", "computes projections only for the newest token"),  # not in the answer
        ("partial", ""),  # a claim without evidence
        ("wrong", "stores the model weights"),  # an accusation without evidence
    ])
    verdicts = verify(raw, bite, ANSWER)
    assert [v.status for v in verdicts.key_points] == ["covered", "missing", "missing", "missing"]
    assert verdicts.key_points[0].evidence == "keeps  the keys and values\nof earlier tokens"
    assert [v.evidence for v in verdicts.key_points[1:]] == [None, None, None]
    assert [v.point for v in verdicts.key_points] == list(bite.point_texts)
    assert [v.kind for v in verdicts.key_points] == [p.kind for p in bite.key_points]


def test_red_flag_needs_a_real_quote(demo_catalog):
    bite = demo_catalog.bites["kv-cache"]
    none = [("missing", "")] * 4
    flagged = verify(_raw(none, red_flag="certain", red_flag_quote="so each step is cheaper"), bite, ANSWER)
    invented = verify(_raw(none, red_flag="certain", red_flag_quote="it caches the weights"), bite, ANSWER)
    assert (flagged.red_flag, flagged.red_flag_possible) == (True, False)
    assert (invented.red_flag, invented.red_flag_possible) == (False, False)


def test_a_possible_red_flag_is_shown_but_never_sure(demo_catalog):
    bite = demo_catalog.bites["kv-cache"]
    verdicts = verify(_raw([("missing", "")] * 4, red_flag="possible", red_flag_quote="so each step is cheaper"), bite, ANSWER)
    assert (verdicts.red_flag, verdicts.red_flag_possible) == (False, True)


def test_purpose_counts_only_with_a_real_quote(demo_catalog):
    bite = demo_catalog.bites["kv-cache"]
    quoted = verify(_raw([("missing", "")] * 4, purpose=True, purpose_quote="so each step is cheaper"), bite, ANSWER)
    invented = verify(_raw([("missing", "")] * 4, purpose=True, purpose_quote="it makes decoding fast"), bite, ANSWER)
    assert quoted.purpose is True and invented.purpose is False


def test_short_verdict_lists_leave_the_rest_missing(demo_catalog):
    bite = demo_catalog.bites["kv-cache"]
    verdicts = verify(_raw([("covered", "The KV cache keeps")]), bite, ANSWER)
    assert [v.status for v in verdicts.key_points] == ["covered", "missing", "missing", "missing"]


def test_schema_demands_one_verdict_per_key_point():
    schema = verdict_schema(4).model_json_schema()
    points = schema["properties"]["key_points"]
    assert points["minItems"] == 4 and points["maxItems"] == 4
    assert set(schema["required"]) == {"key_points", "purpose", "purpose_quote", "mechanism", "mechanism_quote",
                                       "on_topic", "other_concept", "red_flag", "red_flag_quote", "injection"}
    assert schema["properties"]["red_flag"]["enum"] == ["no", "possible", "certain"]
    assert schema["$defs"]["PointJudgement"]["required"] == ["status", "quote"]
    assert schema.get("additionalProperties") is False


def test_prompt_prefix_is_static_and_the_fenced_answer_comes_last(demo_catalog):
    judge = LLMJudge(client=None, max_tokens=128)
    bite = demo_catalog.bites["kv-cache"]
    first = judge.messages(bite, "answer one")
    second = judge.messages(demo_catalog.bites["quantization-basics"], "answer two")
    assert first[0] == second[0] == {"role": "system", "content": STATIC_PREFIX}
    user = first[-1]["content"]
    assert user.index(f"[core] {bite.key_points[0].point}") < user.index("answer one")
    assert user.index(f"PURPOSE: {bite.purpose}") < user.index("answer one")
    fence = user.split("\n")[-2]  # the closing fence sits right after the answer
    assert fence.startswith("=====ANSWER-") and user.count(fence) == 3  # named once, then around the answer
    assert fence not in second[-1]["content"]  # a fresh random fence per request
    assert fence not in STATIC_PREFIX
