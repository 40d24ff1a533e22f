"""The pure rules: streaks and freezes, the question draw, FSRS ratings, the daily
post time across DST changes, and the daily pick order."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from fsrs import Rating

from coach.daily.rules import Candidate, choose_daily, daily_option_order, next_post_time, parse_time, post_time_on
from coach.quiz.rules import draw_questions, shown_index, shown_options, shuffled_order
from coach.progress.review import make_scheduler, rating_for_answer, rating_for_grade, review
from coach.progress.streaks import StreakState, current_streak, iso_week, record_activity, streak_at_risk
from coach.timeutil import local_date, validate_timezone

NY = "America/New_York"
MON = date(2026, 3, 2)


def day(n: int) -> date:
    return MON + timedelta(days=n)


# -- streaks ---------------------------------------------------------------
def test_streak_grows_by_calendar_day_and_same_day_is_no_change():
    s = record_activity(StreakState(), day(0))
    s = record_activity(s, day(0))
    assert s.days == 1
    s = record_activity(s, day(1))
    assert (s.days, s.last_day) == (2, day(1))


def test_one_missed_day_a_week_is_forgiven_once():
    s = StreakState(days=3, last_day=day(1))
    s = record_activity(s, day(3))  # missed Wednesday: the week's freeze
    assert (s.days, s.freeze_week) == (4, iso_week(day(2)))
    s = record_activity(s, day(5))  # missed Friday, same week: reset
    assert s.days == 1


def test_freeze_comes_back_the_next_week():
    s = StreakState(days=5, last_day=day(1), freeze_week=iso_week(day(0)))
    s = record_activity(s, day(8))  # gap of a week: reset
    assert s.days == 1
    s = StreakState(days=5, last_day=day(5), freeze_week=iso_week(day(0)))
    s = record_activity(s, day(7))  # missed Sunday day(6) is still week 0: no freeze left
    assert s.days == 1
    s = StreakState(days=5, last_day=day(6), freeze_week=iso_week(day(0)))
    s = record_activity(s, day(8))  # missed Monday day(7) is in the new week
    assert s.days == 6


def test_two_missed_days_reset():
    assert record_activity(StreakState(days=9, last_day=day(0)), day(3)).days == 1


def test_current_streak_and_risk_as_seen_on_a_day():
    s = StreakState(days=4, last_day=day(1))
    assert current_streak(s, day(1)) == 4 and not streak_at_risk(s, day(1))
    assert current_streak(s, day(2)) == 4 and not streak_at_risk(s, day(2))  # freeze still free
    assert current_streak(s, day(3)) == 4 and streak_at_risk(s, day(3))  # living on the freeze
    assert current_streak(s, day(4)) == 0 and not streak_at_risk(s, day(4))
    spent = StreakState(days=4, last_day=day(1), freeze_week=iso_week(day(0)))
    assert streak_at_risk(spent, day(2)) and current_streak(spent, day(3)) == 0


def test_local_date_follows_the_users_timezone():
    late_evening_ny = datetime(2026, 3, 3, 3, 30, tzinfo=timezone.utc)  # 22:30 on the 2nd in New York
    assert local_date(late_evening_ny, NY) == date(2026, 3, 2)
    assert local_date(late_evening_ny, "UTC") == date(2026, 3, 3)
    assert local_date(late_evening_ny, "Pacific/Kiritimati") == date(2026, 3, 3)


@pytest.mark.parametrize("bad", ["", "Mars/Olympus", "../etc/passwd", "utc ", "New York", "\x00"])
def test_bad_timezones_are_refused(bad):
    with pytest.raises(ValueError):
        validate_timezone(bad)


# -- the draw and shuffle ---------------------------------------------------
def test_draw_never_repeats_and_respects_count():
    pool = [f"q{i}" for i in range(10)]
    drawn = draw_questions(pool + pool[:3], {}, 7, random.Random(1))
    assert len(drawn) == len(set(drawn)) == 7 and set(drawn) <= set(pool)
    assert len(draw_questions(pool, {}, 30, random.Random(1))) == 10


def test_draw_is_weighted_toward_unseen_and_missed():
    pool = [f"q{i}" for i in range(20)]
    known = {q: True for q in pool[:10]}
    missed = {q: False for q in pool[10:15]}
    rng = random.Random(3)
    hits = {"known": 0, "missed": 0, "unseen": 0}
    for _ in range(400):
        for q in draw_questions(pool, {**known, **missed}, 5, rng):
            hits["known" if q in known else "missed" if q in missed else "unseen"] += 1
    per_known, per_missed, per_unseen = hits["known"] / 10, hits["missed"] / 5, hits["unseen"] / 5
    assert per_missed > 2.5 * per_known and per_unseen > 2.5 * per_known


def test_shuffle_maps_shown_to_authored():
    order = shuffled_order(random.Random(5))
    assert sorted(order) == [0, 1, 2, 3]
    options = ("a", "b", "c", "d")
    shown = shown_options(options, order)
    for authored in range(4):
        assert shown[shown_index(order, authored)] == options[authored]


# -- FSRS -------------------------------------------------------------------
def test_ratings():
    assert rating_for_answer(True) == Rating.Good and rating_for_answer(False) == Rating.Again
    assert [rating_for_grade(s) for s in range(5)] == [Rating.Again, Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]


def test_reviews_are_day_granular():
    scheduler = make_scheduler(enable_fuzzing=False)
    now = datetime(2026, 3, 2, 12, tzinfo=timezone.utc)
    missed = review(scheduler, None, Rating.Again, now)
    assert missed.due - now == timedelta(days=1)  # tomorrow, not in ten minutes
    known = review(scheduler, None, Rating.Good, now)
    assert known.due - now >= timedelta(days=1)
    again = review(scheduler, known.to_dict(), Rating.Again, known.due)
    assert again.due - known.due == timedelta(days=1)
    assert known.card_id == int(now.timestamp() * 1000)


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
