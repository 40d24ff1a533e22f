"""The daily post's rules: post times across DST changes, and the pick order."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from coach.daily.rules import Candidate, choose_daily, daily_option_order, next_post_time, parse_time, post_time_on

NY = "America/New_York"
MON = date(2026, 3, 2)


def day(n: int) -> date:
    return MON + timedelta(days=n)


# -- daily post time --------------------------------------------------------
@dataclass
class Sched:
    local_time: time
    timezone: str


def test_parse_time():
    assert parse_time("09:30") == time(9, 30) and parse_time(" 7:05 ") == time(7, 5)
    for bad in ("24:00", "12:60", "9", "09:3", "noon", "12:30:00", "-1:30", "１２:３０"):
        with pytest.raises(ValueError):
            parse_time(bad)


def test_next_post_time_today_or_tomorrow():
    s = Sched(time(9, 0), "Europe/Paris")  # UTC+1 in winter
    assert next_post_time(s, datetime(2026, 1, 10, 7, 0, tzinfo=timezone.utc)) == datetime(2026, 1, 10, 8, 0, tzinfo=timezone.utc)
    at_post = datetime(2026, 1, 10, 8, 0, tzinfo=timezone.utc)
    assert next_post_time(s, at_post) == datetime(2026, 1, 11, 8, 0, tzinfo=timezone.utc)  # strictly after


def test_spring_forward_gap_posts_an_hour_later_on_the_wall_clock():
    s = Sched(time(2, 30), NY)  # 02:30 does not exist on 2026-03-08
    post = next_post_time(s, datetime(2026, 3, 8, 0, 0, tzinfo=timezone.utc))
    assert post == datetime(2026, 3, 8, 7, 30, tzinfo=timezone.utc)
    assert post.astimezone(ZoneInfo(NY)).strftime("%H:%M %Z") == "03:30 EDT"
    following = next_post_time(s, post)
    assert following.astimezone(ZoneInfo(NY)).strftime("%m-%d %H:%M") == "03-09 02:30"
    assert following - post == timedelta(hours=23)


def test_fall_back_posts_once_at_the_first_occurrence():
    s = Sched(time(1, 30), NY)  # 01:30 happens twice on 2026-11-01
    post = next_post_time(s, datetime(2026, 11, 1, 0, 0, tzinfo=timezone.utc))
    assert post == datetime(2026, 11, 1, 5, 30, tzinfo=timezone.utc)  # 01:30 EDT
    following = next_post_time(s, post)  # the 01:30 EST repeat is not a second post
    assert following == datetime(2026, 11, 2, 6, 30, tzinfo=timezone.utc)
    assert following - post == timedelta(hours=25)


def test_ordinary_times_on_dst_days_keep_the_wall_clock():
    s = Sched(time(9, 0), NY)
    spring = post_time_on(s, date(2026, 3, 8)).astimezone(ZoneInfo(NY))
    fall = post_time_on(s, date(2026, 11, 1)).astimezone(ZoneInfo(NY))
    assert (spring.hour, spring.minute, fall.hour, fall.minute) == (9, 0, 9, 0)


def test_next_post_time_needs_an_aware_now():
    with pytest.raises(ValueError):
        next_post_time(Sched(time(9), "UTC"), datetime(2026, 1, 1))


# -- daily pick order -------------------------------------------------------
def _track(bites: dict[str, int]) -> list[Candidate]:
    return [Candidate(b, f"{b}-q{i}") for b, n in bites.items() for i in range(n)]


def test_daily_rotation_covers_every_bite_then_every_question_before_repeating():
    candidates = _track({"a": 3, "b": 1, "c": 2, "d": 1})
    history: list[Candidate] = []
    for n in range(14):
        history.append(choose_daily(5, day(n), candidates, history))
    assert {c.bite_id for c in history[:4]} == {"a", "b", "c", "d"}  # every bite before any repeat
    assert len(set(history[:7])) == 7  # every question before any repeat
    assert set(history[7:14]) == set(candidates)  # then the whole track again


def test_daily_pick_is_deterministic_and_differs_between_guilds():
    candidates = _track({f"b{i}": 2 for i in range(10)})
    assert choose_daily(1, day(0), candidates, []) == choose_daily(1, day(0), candidates, [])
    firsts = {choose_daily(g, day(0), candidates, []) for g in range(20)}
    assert len(firsts) > 1
    order = daily_option_order(1, day(0), "x")
    assert sorted(order) == [0, 1, 2, 3] and order == daily_option_order(1, day(0), "x")


def test_daily_pick_needs_questions():
    with pytest.raises(ValueError):
        choose_daily(1, day(0), [], [])
