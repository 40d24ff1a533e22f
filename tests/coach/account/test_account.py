"""Settings, forget and reports, on both backends."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from sqlalchemy import func, select

from coach.errors import InvalidRequest, NotFound
from coach.results import UserSettings
from coach.store.models import USER_OWNED, DailyPickRow, DailySchedule
from tests.coach.helpers import correct_choice

USER, OTHER, GUILD = 111, 222, 9000
DELIVERY = {"duration_s": 41.0, "speaking_s": 38.5, "words": 92, "wpm": 143.0, "fillers": 4, "fillers_per_min": 6.2,
            "long_pauses": 1, "longest_pause_s": 2.6, "opens_with_core_point": True}


async def test_settings_default_and_update(coach):
    assert await coach.account.get_settings(USER) == UserSettings(USER)  # keep_answers off by default
    updated = await coach.account.update_settings(USER, timezone="Asia/Kolkata", reminders=True)
    assert (updated.timezone, updated.reminders, updated.keep_answers) == ("Asia/Kolkata", True, False)
    assert await coach.account.get_settings(USER) == updated
    assert await coach.account.get_settings(OTHER) == UserSettings(OTHER)


async def test_a_preferred_track_is_kept_and_forgotten(coach):
    assert (await coach.account.update_settings(USER, preferred_track="demo")).preferred_track == "demo"
    assert (await coach.account.get_settings(USER)).preferred_track == "demo"
    assert (await coach.account.update_settings(USER, preferred_track=None)).preferred_track is None


@pytest.mark.parametrize("changes", [{"timezone": "Mars/Base"}, {"colour": "red"}, {"reminders": "yes"},
                                     {"preferred_track": "no-such-track"}])
async def test_bad_settings_are_refused(coach, changes):
    with pytest.raises(InvalidRequest):
        await coach.account.update_settings(USER, **changes)
    assert await coach.account.get_settings(USER) == UserSettings(USER)


async def rows_for(store, user_id):
    counts = {}
    for model, column in USER_OWNED:
        counts[model.__tablename__] = await store.run(
            lambda db, m=model, c=column: db.scalar(select(func.count()).select_from(m).where(c == user_id))
        )
    return counts


async def everything_for(coach, user):
    await coach.account.update_settings(user, keep_answers=True)
    state = (await coach.quiz.start_quiz(user, GUILD, "demo", count=5)).session
    await coach.quiz.answer(user, state.session_id, 0, correct_choice(coach, state))
    await coach.progress.record_attempt(user, GUILD, "bite-a", 3, "llm", 5, "typed answer")
    # A voice answer: its transcript is the kept text, its delivery figures a row of their own.
    await coach.progress.record_attempt(user, GUILD, "bite-a", 2, "embedding", 9, "the transcript", delivery=DELIVERY)
    await coach.account.report(user, GUILD, "bite-a-q1", "option C is also defensible")
    await coach.daily.record_daily_answer(GUILD, datetime(2026, 3, 2).date(), user, 0)
    await coach.interviews.start(user, GUILD, "demo", ["bite-b"])  # a mock interview's record


async def test_forget_deletes_everything_about_the_user_and_nothing_else(coach, store):
    await coach.daily.set_schedule(GUILD, 1, "09:00", "UTC", "demo")
    await coach.daily.pick_daily(GUILD, datetime(2026, 3, 2).date())
    await everything_for(coach, USER)
    await everything_for(coach, OTHER)
    before_other = await rows_for(store, OTHER)
    assert all(n >= 1 for n in (await rows_for(store, USER)).values())

    removed = await coach.account.forget(USER)
    assert removed == sum(before_other.values())  # both did the same things
    assert all(n == 0 for n in (await rows_for(store, USER)).values())
    assert await rows_for(store, OTHER) == before_other
    assert before_other["deliveries"] == 1  # forgetting covers the delivery figures too
    assert await store.run(lambda db: db.scalar(select(func.count()).select_from(DailyPickRow))) == 1
    assert await store.run(lambda db: db.scalar(select(func.count()).select_from(DailySchedule))) == 1
    assert (await coach.progress.stats(USER, GUILD)).xp_total == 0
    assert await coach.account.forget(USER) == 0


async def test_reports_are_stored_and_listed(coach, clock):
    first = await coach.account.report(USER, GUILD, "bite-a-q1", "  the explanation contradicts the bite  ")
    clock.advance(minutes=1)
    await coach.account.report(OTHER, GUILD, "bite-b", "x" * 5000)
    listed = await coach.account.list_reports()
    assert [r.item_id for r in listed] == ["bite-a-q1", "bite-b"]
    assert listed[0] == first and first.note == "the explanation contradicts the bite"
    assert len(listed[1].note) == 2000 and listed[1].created_at.tzinfo == timezone.utc


async def test_report_validation(coach):
    with pytest.raises(NotFound):
        await coach.account.report(USER, GUILD, "no-such-item", "hm")
    with pytest.raises(InvalidRequest):
        await coach.account.report(USER, GUILD, "bite-a", "   ")
