"""The streak rule: one point per active local day, one missed day a week forgiven."""

from __future__ import annotations

from datetime import date, timedelta

from coach.progress.streaks import StreakState, current_streak, iso_week, record_activity, streak_at_risk

MON = date(2026, 3, 2)


def day(n: int) -> date:
    return MON + timedelta(days=n)


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
