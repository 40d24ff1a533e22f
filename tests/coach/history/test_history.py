"""Progress over time: the pure rules (weeks, streak calendar, mastery, what to study next,
a server's first weekday) and the history service's queries on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from coach.daily.rules import first_weekday_for_locale, is_week_start, parse_weekday
from coach.history.rules import (
    DUE_SOON_DAYS, due_soon, mastery, mastery_level, next_to_study, streak_calendar, week_start,
)
from coach.results import BiteMastery, DueDay
from coach.progress.xp import XP_CORRECT_ANSWER, XP_DAILY_CORRECT, XP_FINISH_BONUS, explanation_xp
from coach.store.models import Attempt, XpEvent
from tests.coach.helpers import START, correct_choice, wrong_choice

USER, OTHER, THIRD, GUILD, CHANNEL = 111, 222, 333, 9000, 4242
MONDAY = date(2026, 3, 2)


# ----- pure rules ------------------------------------------------------------------------------

def test_week_start_for_any_first_weekday():
    wednesday = date(2026, 3, 4)
    assert week_start(wednesday) == MONDAY
    assert week_start(wednesday, 6) == date(2026, 3, 1)  # Sunday-first
    assert week_start(wednesday, 5) == date(2026, 2, 28)  # Saturday-first
    assert week_start(MONDAY) == MONDAY


def test_streak_calendar_marks_the_forgiven_day_and_not_a_second_miss():
    mon, tue, wed, thu, fri, sat, sun = (MONDAY + timedelta(days=i) for i in range(7))
    # Active Mon, Tue, Thu (Wed forgiven: the week's freeze), Sat (Fri missed: the freeze is spent).
    calendar = streak_calendar([mon, tue, thu, sat, tue], mon, sun, today=sat)
    assert [(d.day.weekday(), d.state) for d in calendar] == [
        (0, "active"), (1, "active"), (2, "freeze"), (3, "active"), (4, "missed"), (5, "active"), (6, "future")]


def test_streak_calendar_needs_the_week_before_to_know_the_first_week():
    # Sunday before the window missed and forgiven in its own ISO week: Monday's freeze is still free.
    fri, sat = MONDAY - timedelta(days=3), MONDAY - timedelta(days=2)
    calendar = streak_calendar([fri, sat, MONDAY, MONDAY + timedelta(days=2)], MONDAY, MONDAY + timedelta(days=6),
                               today=MONDAY + timedelta(days=2))
    assert [d.state for d in calendar[:3]] == ["active", "freeze", "active"]
    assert all(d.state == "future" for d in calendar[3:])


def test_reviews_due_soon_are_today_and_the_seven_days_after_it():
    wednesday = date(2026, 12, 2)
    due = [DueDay(wednesday + timedelta(days=i), 10 ** i) for i in range(14)]  # each day's count names its day
    soon = due_soon(wednesday, due)
    assert DUE_SOON_DAYS == 7 and soon.until == date(2026, 12, 9), "Thursday to the next Wednesday"
    assert soon.today == 1, "today (the first entry: everything overdue too)"
    assert soon.ahead == sum(10 ** i for i in range(1, 8)), "the 7th day (Wed 9 Dec) in, the 8th (Thu 10 Dec) out"
    assert due_soon(wednesday, []) == (0, 0, date(2026, 12, 9))


def test_mastery_mixes_what_the_member_has_done():
    assert mastery(0, 0, None, None) is None and mastery_level(None) == "new"
    assert mastery(1, 1, None, None) == pytest.approx(2 / 3), "one right answer is not mastery"
    assert mastery(0, 0, 4, None) == 1.0
    assert mastery(0, 0, None, 10.0) == pytest.approx(0.5)
    assert mastery(8, 8, 4, 90.0) == pytest.approx(((9 / 10) + 1.0 + 0.9) / 3)
    assert [mastery_level(v) for v in (0.1, 0.45, 0.75, 0.9)] == ["weak", "learning", "solid", "mastered"]


def _bite(bite_id, value, due=None):
    return BiteMastery(bite_id, bite_id, "g", 1 if value is not None else 0, 1, None, None, due, value,
                       mastery_level(value))


def test_next_to_study_prefers_due_then_weakest_then_new():
    now = datetime(2026, 3, 2, tzinfo=timezone.utc)
    bites = [_bite("a", 0.9), _bite("b", 0.5), _bite("c", None), _bite("d", 0.3, due=now + timedelta(days=1))]
    assert next_to_study(bites, now) == ("d", "weakest")
    bites.append(_bite("e", 0.95, due=now - timedelta(hours=1)))
    assert next_to_study(bites, now) == ("e", "due")
    assert next_to_study([_bite("a", 0.9), _bite("c", None)], now) == ("c", "new")
    assert next_to_study([_bite("a", 0.9), _bite("b", 0.8)], now) == ("b", "weakest")
    assert next_to_study([], now) == (None, "")


@pytest.mark.parametrize("locale, weekday", [
    ("en-US", 6), ("en-GB", 0), ("pt-BR", 6), ("ja", 6), ("ko", 6), ("zh-CN", 6), ("fr", 0), ("de", 0),
    ("es-419", 0), ("hi", 6), (None, 0), ("", 0), ("xx-AE", 5),
])
def test_first_weekday_follows_the_locale(locale, weekday):
    assert first_weekday_for_locale(locale) == weekday


def test_parse_weekday():
    assert (parse_weekday("Monday"), parse_weekday("sun"), parse_weekday("SATURDAY")) == (0, 6, 5)
    for bad in ("", "mo", "someday"):
        with pytest.raises(ValueError):
            parse_weekday(bad)


# ----- the service -------------------------------------------------------------------------------

async def answer_quiz(coach, user, guild, right=True, count=5):
    state = (await coach.quiz.start_quiz(user, guild, "demo", count=count)).session
    for position in range(count):
        current = await coach.quiz.get_session(state.session_id)
        await coach.quiz.answer(user, state.session_id, position, (correct_choice if right else wrong_choice)(coach, current))
    return await coach.quiz.finish(state.session_id)


async def test_empty_history_has_every_week_and_day(coach):
    history = await coach.history.progress_history(USER)
    assert len(history.weeks) == 12 and history.weeks[-1].start == MONDAY
    assert all(w.answered == w.xp == w.explained == 0 and w.accuracy is None and w.mean_score is None
               for w in history.weeks)
    assert len(history.calendar) == 12 * 7 and history.calendar[0].day == MONDAY - timedelta(weeks=11)
    assert history.calendar[0].day.weekday() == 0 and history.calendar[-1].day == MONDAY + timedelta(days=6)
    assert {d.state for d in history.calendar} == {"missed", "future"}
    assert [d.count for d in history.due] == [0] * 14 and history.due[0].day == MONDAY
    assert history.streak == 0 and history.today == MONDAY


async def test_history_buckets_weeks_calendar_and_reviews_due(coach, clock):
    await answer_quiz(coach, USER, GUILD, right=False)  # Monday: 5 wrong, due tomorrow
    clock.advance(days=1)
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 1, None)  # Tuesday
    clock.advance(days=7)  # the next Tuesday, after six days without activity
    await answer_quiz(coach, USER, GUILD, right=True)
    history = await coach.history.progress_history(USER)
    last, before = history.weeks[-1], history.weeks[-2]
    assert (before.answered, before.correct, before.explained, before.score_sum) == (5, 0, 1, 3)
    assert before.xp == XP_FINISH_BONUS + explanation_xp(3)
    assert (last.answered, last.correct, last.xp) == (5, 5, 5 * XP_CORRECT_ANSWER + XP_FINISH_BONUS)
    assert last.accuracy == 1.0 and before.mean_score == 3.0
    states = {d.day: d.state for d in history.calendar}
    assert states[MONDAY] == states[MONDAY + timedelta(days=1)] == "active"
    assert states[MONDAY + timedelta(days=2)] == "missed", "the streak broke after two missed days"
    assert states[MONDAY + timedelta(days=8)] == "active" and states[MONDAY + timedelta(days=9)] == "future"
    # The five missed questions fell due last Tuesday: overdue now, so counted today.
    assert history.due[0].day == MONDAY + timedelta(days=8) and history.due[0].count >= 5
    assert sum(d.count for d in history.due) >= 6


async def test_history_uses_the_members_timezone(coach, clock):
    await coach.account.update_settings(USER, timezone="Asia/Tokyo")
    clock.set(datetime(2026, 3, 1, 20, 0, tzinfo=timezone.utc))  # Sunday in UTC, Monday 05:00 in Tokyo
    await answer_quiz(coach, USER, GUILD)
    history = await coach.history.progress_history(USER)
    assert history.today == MONDAY and history.weeks[-1].answered == 5
    assert next(d for d in history.calendar if d.day == MONDAY).state == "active"


async def test_a_year_of_history_counts_only_the_shown_weeks(coach, store, clock):
    start = START - timedelta(days=364)

    async def seed(db):
        for i in range(365):
            moment = start + timedelta(days=i)
            db.add(Attempt(user_id=USER, guild_id=GUILD, bite_id="bite-a", score=i % 5, grader="llm", latency_ms=1,
                           created_at=moment))
            db.add(XpEvent(user_id=USER, guild_id=GUILD, amount=10, source_key=f"seed:{i}", created_at=moment))

    await store.run(seed)
    history = await coach.history.progress_history(USER)
    assert [w.explained for w in history.weeks[:-1]] == [7] * 11 and history.weeks[-1].explained == 1
    assert sum(w.xp for w in history.weeks) == 10 * (11 * 7 + 1)
    assert all(d.state == "active" for d in history.calendar if d.day <= history.today)


async def test_mastery_map_scores_every_bite_and_picks_the_next(coach, clock):
    empty = await coach.history.mastery_map(USER, "demo")
    assert [b.bite_id for b in empty.bites] == [f"bite-{c}" for c in "abcdef"]
    assert all(b.level == "new" for b in empty.bites) and empty.bites[0].group == "test"
    assert (empty.next_bite_id, empty.next_reason) == ("bite-a", "new")

    await coach.progress.record_attempt(USER, GUILD, "bite-b", 4, "llm", 1, None)
    state = (await coach.quiz.start_bite_quiz(USER, GUILD, "bite-c")).session
    current = await coach.quiz.get_session(state.session_id)
    await coach.quiz.answer(USER, state.session_id, 0, wrong_choice(coach, current))
    mapped = {b.bite_id: b for b in (await coach.history.mastery_map(USER, "demo")).bites}
    assert mapped["bite-b"].best_score == 4 and mapped["bite-b"].stability > 0 and mapped["bite-b"].level != "new"
    assert (mapped["bite-c"].answered, mapped["bite-c"].correct) == (1, 0) and mapped["bite-c"].due is not None
    assert mapped["bite-c"].mastery < mapped["bite-b"].mastery
    assert (await coach.history.mastery_map(USER, "demo")).next_reason in ("weakest", "new")
    clock.advance(days=2)  # the missed question is due again
    later = await coach.history.mastery_map(USER, "demo")
    assert (later.next_bite_id, later.next_reason) == ("bite-c", "due")
    with pytest.raises(Exception):
        await coach.history.mastery_map(USER, "no-such-track")


async def test_schedule_week_start_from_the_option_the_locale_or_what_it_was(coach):
    assert (await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "demo", locale="en-US")).week_start == 6
    assert (await coach.daily.set_schedule(GUILD, CHANNEL, "10:00", "UTC", "demo", locale="fr")).week_start == 6, "kept"
    assert (await coach.daily.set_schedule(GUILD, CHANNEL, "10:00", "UTC", "demo", week_start=0)).week_start == 0
    assert (await coach.daily.get_schedule(GUILD)).week_start == 0
    assert (await coach.daily.set_schedule(GUILD + 1, CHANNEL, "09:00", "UTC", "demo")).week_start == 0
    with pytest.raises(Exception):
        await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "demo", week_start=7)
    assert is_week_start(await coach.daily.get_schedule(GUILD), MONDAY)


async def test_guild_week_days_misses_and_leaders_without_opted_out_members(coach, clock):
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "demo", week_start=0)
    for offset in (0, 2):  # daily questions on Monday and Wednesday
        day = MONDAY + timedelta(days=offset)
        clock.set(datetime.combine(day, datetime.min.time(), tzinfo=timezone.utc) + timedelta(hours=10))
        pick = await coach.daily.pick_daily(GUILD, day)
        right = pick.question.options.index(
            coach.catalog.questions[pick.question.question_id].options[coach.catalog.questions[pick.question.question_id].answer])
        await coach.daily.record_daily_answer(GUILD, day, USER, right)
        await coach.daily.record_daily_answer(GUILD, day, OTHER, (right + 1) % 4)
        await coach.daily.record_daily_answer(GUILD, day, THIRD, (right + 1) % 4)
    await answer_quiz(coach, OTHER, GUILD, right=False)  # Wednesday, five wrong
    await answer_quiz(coach, THIRD, GUILD, right=True)
    await answer_quiz(coach, USER, GUILD + 1, right=True)  # another server: not counted
    await coach.account.update_settings(THIRD, leaderboard_opt_out=True)
    clock.set(datetime(2026, 3, 9, 9, 0, tzinfo=timezone.utc))  # next Monday: last week is done

    week = await coach.history.guild_week(GUILD)
    assert (week.start, week.end, week.week_start) == (MONDAY, MONDAY + timedelta(days=6), 0)
    assert [d.posted for d in week.days] == [True, False, True, False, False, False, False]
    monday = week.days[0]
    assert monday.total == 3 and monday.counts[monday.correct_choice] == 1 and sum(monday.counts) == 3
    assert week.answers == 6 + 10
    # USER: two right daily answers; OTHER: the finish bonus only; THIRD opted out.
    assert [(r.user_id, r.xp) for r in week.leaders] == [(USER, 2 * XP_DAILY_CORRECT), (OTHER, XP_FINISH_BONUS)]
    assert week.most_missed and all(m.wrong > 0 for m in week.most_missed)
    assert week.most_missed == tuple(sorted(week.most_missed, key=lambda m: (-m.wrong, -m.wrong / m.answered, m.title)))
    assert sum(m.wrong for m in week.most_missed) <= 4 + 5

    earlier = await coach.history.guild_week(GUILD, MONDAY - timedelta(days=7))
    assert not any(d.posted for d in earlier.days) and earlier.leaders == () and earlier.answers == 0


async def test_guild_week_follows_a_sunday_first_server_in_its_timezone(coach, clock):
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "America/Los_Angeles", "demo", week_start=6)
    clock.set(datetime(2026, 3, 9, 6, 0, tzinfo=timezone.utc))  # Sunday 23:00 in Los Angeles
    await answer_quiz(coach, USER, GUILD)
    week = await coach.history.guild_week(GUILD)
    assert week.start == date(2026, 3, 1) and week.start.weekday() == 6 and week.timezone == "America/Los_Angeles"
    this_week = await coach.history.guild_week(GUILD, date(2026, 3, 8))
    assert this_week.answers == 5 and this_week.leaders[0].user_id == USER


async def test_schedules_from_before_the_week_start_column_start_on_monday(empty_database_url, catalog, settings):
    from sqlalchemy import text

    from coach.engine import Coach
    from coach.store import Store
    from tests.coach.store.test_faults import migrate

    async with Store(empty_database_url) as store:
        await store.upgrade()
        await migrate(store, "downgrade", "0003")
        await store.run(lambda db: db.execute(text(
            "INSERT INTO daily_schedules (guild_id, channel_id, local_time, timezone, track, enabled, updated_at) "
            "VALUES (9000, 4242, '09:00', 'UTC', 'demo', true, '2026-03-01 00:00:00')")))
        await store.upgrade()
        schedule = await Coach(store, catalog, settings).daily.get_schedule(9000)
        assert schedule.week_start == 0 and schedule.track == "demo"
