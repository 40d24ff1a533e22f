"""Explanations, reviews, stats, leaderboard, streaks in the user's timezone, reminders."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import func, select

from coach.errors import InvalidRequest
from coach.progress.xp import XP_CORRECT_ANSWER, explanation_xp
from coach.store.models import Attempt, ReviewCard, XpEvent
from tests.coach.helpers import correct_choice, wrong_choice

USER, OTHER, THIRD, GUILD, GUILD2 = 111, 222, 333, 9000, 9001


async def answer_all(coach, user, guild, count=5, right=True):
    state = (await coach.quiz.start_quiz(user, guild, "demo", count=count)).session
    for position in range(count):
        current = await coach.quiz.get_session(state.session_id)
        choice = correct_choice(coach, current) if right else wrong_choice(coach, current)
        await coach.quiz.answer(user, state.session_id, position, choice)
    return await coach.quiz.finish(state.session_id)


async def test_record_attempt_credits_xp_and_schedules_bite_review(coach, store, clock):
    record = await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 850, "my answer")
    assert record.xp_gained == explanation_xp(3) and not record.duplicate and record.grader == "llm"
    assert not record.text_kept  # off by default
    assert record.next_review > clock()
    clock.set(record.next_review)
    due = await coach.progress.due(USER)
    assert [d.item_id for d in due.bites] == ["bite-a"] and due.questions == ()


async def test_attempt_text_kept_only_when_allowed(coach, store):
    await coach.account.update_settings(USER, keep_answers=True)
    kept = await coach.progress.record_attempt(USER, GUILD, "bite-a", 2, "embedding", 40, "kv cache keeps keys")
    assert kept.text_kept
    texts = await store.run(lambda db: db.scalars(select(Attempt.answer_text).where(Attempt.user_id == USER)))
    assert list(texts) == ["kv cache keeps keys"]
    await coach.account.update_settings(USER, keep_answers=False)  # switching off erases what was kept
    texts = await store.run(lambda db: db.scalars(select(Attempt.answer_text).where(Attempt.user_id == USER)))
    assert list(texts) == [None]


async def test_attempt_key_makes_a_retry_idempotent(coach, store):
    results = await asyncio.gather(
        *(coach.progress.record_attempt(USER, GUILD, "bite-b", 4, "llm", 100, None, attempt_key="interaction-77") for _ in range(3))
    )
    assert [r.duplicate for r in results].count(False) == 1
    assert len({r.attempt_id for r in results}) == 1
    count = await store.run(lambda db: db.scalar(select(func.count()).select_from(Attempt)))
    xp = await store.run(lambda db: db.scalar(select(func.sum(XpEvent.amount)).where(XpEvent.user_id == USER)))
    assert count == 1 and xp == explanation_xp(4)


async def test_record_attempt_validates(coach):
    with pytest.raises(InvalidRequest):
        await coach.progress.record_attempt(USER, GUILD, "no-such-bite", 3, "llm", 1, None)
    with pytest.raises(InvalidRequest):
        await coach.progress.record_attempt(USER, GUILD, "bite-a", 5, "llm", 1, None)


async def test_explanation_grades_map_to_fsrs_intervals(coach, clock):
    low = await coach.progress.record_attempt(USER, GUILD, "bite-a", 1, "llm", 1, None)
    high = await coach.progress.record_attempt(USER, GUILD, "bite-b", 4, "llm", 1, None)
    assert low.next_review - clock() == timedelta(days=1)
    assert high.next_review - clock() > timedelta(days=3)


async def test_missed_question_comes_back_tomorrow_in_a_review_session(coach, clock):
    await answer_all(coach, USER, GUILD, right=False)
    await coach.progress.record_attempt(USER, GUILD, "bite-c", 0, "embedding", 1, None)
    assert (await coach.progress.due(USER)).count == 0
    clock.advance(days=1)
    due = await coach.progress.due(USER)
    assert len(due.questions) == 5 and [b.item_id for b in due.bites] == ["bite-c"]
    started = await coach.quiz.start_review(USER, GUILD, count=5)
    assert started.session.kind == "review" and started.session.total == 5
    assert [b.item_id for b in started.explain_again] == ["bite-c"]
    for position in range(5):
        current = await coach.quiz.get_session(started.session.session_id)
        assert current.question.question_id in {q.item_id for q in due.questions}
        await coach.quiz.answer(USER, current.session_id, position, correct_choice(coach, current))
    assert len((await coach.progress.due(USER)).questions) == 0
    also = await coach.quiz.start_quiz(USER, GUILD, "review", count=5)  # the track name "review" works too
    assert also.nothing_due and [b.item_id for b in also.explain_again] == ["bite-c"]


async def test_stats(coach, clock):
    await answer_all(coach, USER, GUILD, right=True)
    clock.advance(days=1)
    await answer_all(coach, USER, GUILD2, right=False)
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 2, "llm", 1, None)
    stats = await coach.progress.stats(USER, GUILD)
    assert stats.xp_guild == 5 * XP_CORRECT_ANSWER + 20 + explanation_xp(2)
    assert stats.xp_total == stats.xp_guild + 20
    assert (stats.answered, stats.correct, stats.streak) == (10, 5, 2)
    assert stats.accuracy_by_bite[0].accuracy <= stats.accuracy_by_bite[-1].accuracy
    assert [a.bite_id for a in stats.last_attempts] == ["bite-a"]
    empty = await coach.progress.stats(OTHER, GUILD)
    assert (empty.xp_total, empty.streak, empty.answered) == (0, 0, 0)


async def test_streak_counts_days_in_the_users_timezone(coach, clock):
    await coach.account.update_settings(USER, timezone="America/New_York")
    clock.set(datetime(2026, 3, 3, 2, 0, tzinfo=timezone.utc))  # 21:00 on Mar 2 in New York
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 1, None)
    clock.set(datetime(2026, 3, 3, 4, 30, tzinfo=timezone.utc))  # 23:30 Mar 2: same local day
    await coach.progress.record_attempt(USER, GUILD, "bite-b", 3, "llm", 1, None)
    assert (await coach.progress.stats(USER, GUILD)).streak == 1
    clock.set(datetime(2026, 3, 3, 5, 30, tzinfo=timezone.utc))  # 00:30 Mar 3: the next local day
    await coach.progress.record_attempt(USER, GUILD, "bite-c", 3, "llm", 1, None)
    assert (await coach.progress.stats(USER, GUILD)).streak == 2
    # UTC user doing the same at the same instants: all on Mar 3 UTC
    for moment in (2, 4, 5):
        clock.set(datetime(2026, 3, 3, moment, 0, tzinfo=timezone.utc))
        await coach.progress.record_attempt(OTHER, GUILD, "bite-a", 3, "llm", 1, None)
    assert (await coach.progress.stats(OTHER, GUILD)).streak == 1


async def test_streak_freeze_through_the_engine(coach, clock):
    for day in (0, 1, 3):  # Mon, Tue, (miss Wed), Thu
        clock.set(datetime(2026, 3, 2, 12, tzinfo=timezone.utc) + timedelta(days=day))
        await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 1, None)
    assert (await coach.progress.stats(USER, GUILD)).streak == 3
    clock.advance(days=2)  # miss Fri, act Sat: second miss this week
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 1, None)
    assert (await coach.progress.stats(USER, GUILD)).streak == 1


async def test_leaderboard_is_per_guild_and_per_period(coach, clock):
    await answer_all(coach, USER, GUILD)  # 70 in GUILD
    await coach.progress.record_attempt(OTHER, GUILD, "bite-a", 4, "llm", 1, None)  # 20 in GUILD
    await answer_all(coach, THIRD, GUILD2)  # only in GUILD2
    board = await coach.progress.leaderboard(GUILD, "week")
    assert [(r.rank, r.user_id, r.xp) for r in board] == [(1, USER, 70), (2, OTHER, 20)]
    assert [r.user_id for r in await coach.progress.leaderboard(GUILD2, "all")] == [THIRD]
    clock.advance(days=8)
    await coach.progress.record_attempt(OTHER, GUILD, "bite-b", 1, "llm", 1, None)  # 5, this week
    assert [(r.user_id, r.xp) for r in await coach.progress.leaderboard(GUILD, "week")] == [(OTHER, 5)]
    assert [(r.user_id, r.xp) for r in await coach.progress.leaderboard(GUILD, "month")] == [(USER, 70), (OTHER, 25)]
    clock.advance(days=30)
    assert [(r.user_id, r.xp) for r in await coach.progress.leaderboard(GUILD, "all")] == [(USER, 70), (OTHER, 25)]
    assert await coach.progress.leaderboard(GUILD, "month") == []
    assert len(await coach.progress.leaderboard(GUILD, "all", limit=1)) == 1
    with pytest.raises(InvalidRequest):
        await coach.progress.leaderboard(GUILD, "year")


async def test_leaderboard_honours_opt_out(coach):
    await answer_all(coach, USER, GUILD)
    await coach.progress.record_attempt(OTHER, GUILD, "bite-a", 4, "llm", 1, None)
    await coach.account.update_settings(USER, leaderboard_opt_out=True)
    assert [r.user_id for r in await coach.progress.leaderboard(GUILD, "all")] == [OTHER]
    await coach.account.update_settings(USER, leaderboard_opt_out=False)
    assert [r.user_id for r in await coach.progress.leaderboard(GUILD, "all")] == [USER, OTHER]


async def test_reminders_for_due_reviews_and_streaks_once_a_day(coach, clock):
    clock.set(datetime(2026, 3, 2, 12, tzinfo=timezone.utc))
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 0, "llm", 1, None)  # due tomorrow
    await coach.progress.record_attempt(OTHER, GUILD, "bite-a", 0, "llm", 1, None)  # OTHER never opts in
    await coach.account.update_settings(USER, reminders=True, timezone="Europe/Berlin")
    clock.set(datetime(2026, 3, 3, 15, 0, tzinfo=timezone.utc))  # 16:00 in Berlin: too early
    assert await coach.progress.reminders_due() == []
    clock.set(datetime(2026, 3, 3, 17, 5, tzinfo=timezone.utc))  # 18:05 in Berlin
    [reminder] = await coach.progress.reminders_due()
    assert (reminder.user_id, reminder.reviews_due, reminder.streak) == (USER, 1, 1)
    assert await coach.progress.reminders_due() == []  # once per local day
    clock.advance(days=1)
    assert [r.user_id for r in await coach.progress.reminders_due()] == [USER]


async def test_no_reminder_without_reason(coach, clock):
    await coach.account.update_settings(USER, reminders=True)
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 4, "llm", 1, None)  # due in days; streak safe today
    clock.set(clock().replace(hour=19))
    assert await coach.progress.reminders_due() == []


async def test_cards_store_fsrs_json_and_bigint_ids(coach, store, clock):
    await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 1, None)
    card = await store.run(lambda db: db.scalar(select(ReviewCard)))
    assert card.card_id == int(clock().timestamp() * 1000) > 2**31
    assert card.card["card_id"] == card.card_id and card.due.tzinfo is not None
    assert card.due.isoformat() == card.card["due"]
