"""Property tests over the schedule parser and the post-time function: random and
adversarial input never crashes (only a ValueError with a readable message) and
valid input always yields a sane post time."""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone
from types import SimpleNamespace
from zoneinfo import ZoneInfo, available_timezones

from hypothesis import given, settings
from hypothesis import strategies as st

from coach.daily.rules import format_time, next_post_time, parse_time, validate_schedule
from coach.timeutil import validate_timezone

ZONES = sorted(available_timezones())
AWARE = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(timezone.utc)
)


# No per-example deadline: the first call loads the tz database, and the machine is shared.
RELAXED = settings(deadline=None)


@RELAXED
@given(st.text(max_size=40))
def test_parse_time_accepts_or_raises_value_error(text):
    try:
        parsed = parse_time(text)
    except ValueError as error:
        assert str(error) and len(str(error)) < 200
    else:
        assert 0 <= parsed.hour <= 23 and 0 <= parsed.minute <= 59
        assert parse_time(format_time(parsed)) == parsed


@RELAXED
@given(st.integers(0, 23), st.integers(0, 59), st.sampled_from(["", " ", "\t"]))
def test_every_valid_time_parses(hour, minute, pad):
    assert parse_time(f"{pad}{hour:02d}:{minute:02d}{pad}") == time(hour, minute)
    assert parse_time(f"{hour}:{minute:02d}") == time(hour, minute)


@RELAXED
@given(st.one_of(st.text(max_size=80), st.sampled_from(ZONES), st.from_regex(r"[A-Za-z_/.\-+0-9]{1,40}")))
def test_timezone_validation_accepts_or_raises_value_error(name):
    try:
        validated = validate_timezone(name)
    except ValueError as error:
        assert len(str(error)) < 200
    else:
        ZoneInfo(validated)


@RELAXED
@given(st.text(max_size=12), st.text(max_size=40))
def test_validate_schedule_never_crashes(time_text, tz_text):
    try:
        at, tz = validate_schedule(time_text, tz_text)
    except ValueError:
        return
    assert isinstance(at, time) and tz in ZONES + ["UTC"]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 23), st.integers(0, 59), st.sampled_from(ZONES), AWARE)
def test_next_post_time_is_soon_after_now_and_at_the_local_time(hour, minute, tz, now):
    schedule = SimpleNamespace(local_time=time(hour, minute), timezone=tz)
    post = next_post_time(schedule, now)
    assert post.tzinfo is not None and post > now
    assert post - now <= timedelta(hours=27)  # a day plus the largest DST jump, and then some
    local = post.astimezone(ZoneInfo(tz))
    if (local.hour, local.minute) != (hour, minute):
        # only in a spring-forward gap, which moves the post later by the gap's size
        wall = datetime.combine(local.date(), time(hour, minute))
        assert local.replace(tzinfo=None) > wall and local.replace(tzinfo=None) - wall <= timedelta(hours=3)
