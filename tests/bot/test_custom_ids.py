"""The custom_id codec: round trips, Discord's 100-char limit, tolerant decoding."""

import string
from datetime import date

import pytest
from hypothesis import given, settings, strategies as st

from bot import custom_ids

slugs = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,4}", fullmatch=True)
sessions = st.from_regex(r"[0-9A-Za-z_-]{1,40}", fullmatch=True)


@given(sessions, st.integers(0, 999), st.integers(0, 3))
def test_answer_round_trips_within_limit(session, position, choice):
    encoded = custom_ids.answer(session, position, choice)
    assert len(encoded) <= custom_ids.MAX_LENGTH
    decoded = custom_ids.decode(encoded)
    assert decoded.action == "answer"
    assert (decoded.session, decoded.position, decoded.choice) == (session, position, choice)


@given(slugs, st.from_regex(r"[0-9a-f]{8,16}", fullmatch=True))
def test_bite_actions_round_trip(bite, draft):
    for action, encoded in [
        ("read", custom_ids.read_bite(bite)),
        ("explain", custom_ids.explain(bite)),
        ("quiz_bite", custom_ids.quiz_bite(bite)),
        ("answer_modal", custom_ids.answer_modal(bite)),
        ("regrade", custom_ids.regrade(bite, draft)),
    ]:
        decoded = custom_ids.decode(encoded)
        assert decoded.action == action and decoded.bite == bite and len(encoded) <= 100


def test_modal_without_bite_decodes_to_none_bite():
    assert custom_ids.decode(custom_ids.answer_modal(None)).bite is None


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=50), st.integers(), st.none()))
def test_garbage_decodes_to_none_or_a_valid_action(value):
    decoded = custom_ids.decode(value)
    if decoded is not None:
        assert decoded.action in custom_ids.TEMPLATES
        assert len(value) <= custom_ids.MAX_LENGTH


@given(st.text(alphabet=string.printable, max_size=30))
def test_near_misses_never_raise(suffix):
    for prefix in ("q:", "q:1:2:", "d:", "r:q:", "g:kv-cache:", "m:", "rm:b:", "f:"):
        decoded = custom_ids.decode(prefix + suffix)
        assert decoded is None or decoded.action in custom_ids.TEMPLATES


@pytest.mark.parametrize(
    "forged",
    [
        "q:abc:1:4",  # no fifth option
        "q:abc:-1:0",
        "q:abc:1:0:extra",
        "d:20260101:0:999",  # an extra user id is not accepted: the actor is never in the id
        "d:20260231:1",  # matches the digits, is no date
        "f:123456:999",
        "b:../etc",
        "b:KV",
        "q:" + "a" * 41 + ":1:0",
        "d:" + "9" * 20 + ":0",
        "d:123:0",
        "x" * 101,
    ],
)
def test_forged_shapes_are_rejected(forged):
    assert custom_ids.decode(forged) is None


def test_encoding_out_of_format_values_is_a_bug_not_a_silent_truncation():
    with pytest.raises(custom_ids.EncodeError):
        custom_ids.answer("a" * 60, 1, 0)
    with pytest.raises(custom_ids.EncodeError):
        custom_ids.read_bite("Not A Slug")


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)), st.integers(0, 3))
def test_daily_round_trips_the_date(day, choice):
    decoded = custom_ids.decode(custom_ids.daily(day, choice))
    assert (decoded.action, decoded.day, decoded.choice) == ("daily", day, choice)
