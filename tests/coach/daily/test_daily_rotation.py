"""Daily rotation through the engine: schedules, due posts, picks, answers, results."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, time, timedelta, timezone

import pytest
from sqlalchemy import func, select

from coach.engine import Coach
from coach.errors import InvalidRequest, NotFound
from coach.progress.xp import XP_DAILY_CORRECT
from coach.store import Store
from coach.store.models import DailyAnswer, DailyPickRow
from tests.coach.helpers import make_catalog

GUILD, GUILD2, CHANNEL = 9000, 9001, 4242
DAY = date(2026, 3, 2)


async def test_schedule_set_get_disable(coach):
    schedule = await coach.daily.set_schedule(GUILD, CHANNEL, "08:15", "Europe/Paris", "demo")
    assert (schedule.local_time, schedule.timezone, schedule.enabled) == (time(8, 15), "Europe/Paris", True)
    assert await coach.daily.get_schedule(GUILD) == schedule
    changed = await coach.daily.set_schedule(GUILD, CHANNEL, time(20, 0), "UTC", "demo")
    assert changed.channel_id == CHANNEL and (await coach.daily.get_schedule(GUILD)).local_time == time(20, 0)
    assert await coach.daily.disable_schedule(GUILD) == 1
    assert (await coach.daily.get_schedule(GUILD)).enabled is False
    assert await coach.daily.disable_schedule(GUILD2) == 0 and await coach.daily.get_schedule(GUILD2) is None


async def test_a_server_posts_one_schedule_per_channel_each_its_own_track(tmp_path, store, settings, clock):
    catalog = make_catalog(tmp_path, {"alpha": {f"a-{c}": 2 for c in "abc"}, "beta": {f"b-{c}": 2 for c in "abc"}})
    coach = Coach(store, catalog, settings, clock=clock, rng_seed=7, enable_fuzzing=False)
    first = await coach.daily.set_schedule(GUILD, CHANNEL, "08:00", "UTC", "alpha", week_start=6)
    second = await coach.daily.set_schedule(GUILD, CHANNEL + 1, "09:00", "UTC", "beta")
    assert (second.track, second.week_start) == ("beta", 6)  # the server's week is shared by its channels
    assert [s.channel_id for s in await coach.daily.get_schedules(GUILD)] == [CHANNEL, CHANNEL + 1]
    picks = {c: await coach.daily.pick_daily(GUILD, DAY, channel_id=c) for c in (CHANNEL, CHANNEL + 1)}
    assert picks[CHANNEL].bite_id.startswith("a-") and picks[CHANNEL + 1].bite_id.startswith("b-")
    assert picks[CHANNEL].pick_id != picks[CHANNEL + 1].pick_id
    # A member answers both posts of the day; each counts once, in its own channel.
    for channel, pick in picks.items():
        result = await coach.daily.record_daily_answer(GUILD, DAY, 7, 0, channel_id=channel)
        assert result.outcome == "ok" and result.bite_id == pick.bite_id
        again = await coach.daily.record_daily_answer(GUILD, DAY, 7, 1, channel_id=channel)
        assert again.outcome == "already_answered"
    assert (await coach.daily.daily_results(GUILD, DAY, channel_id=CHANNEL + 1)).total == 1
    # Off in one channel: the other still posts; off with no channel: none does.
    assert await coach.daily.disable_schedule(GUILD, CHANNEL) == 1
    assert [s.channel_id for s in await coach.daily.get_schedules(GUILD) if s.enabled] == [CHANNEL + 1]
    assert (await coach.daily.get_schedule(GUILD)).channel_id == CHANNEL + 1  # the main one is the first one on
    assert await coach.daily.disable_schedule(GUILD) == 1
    assert first.week_start == 6


async def test_a_server_has_at_most_a_few_schedules(coach):
    from coach.daily.service import MAX_SCHEDULES

    for offset in range(MAX_SCHEDULES):
        await coach.daily.set_schedule(GUILD, CHANNEL + offset, "09:00", "UTC", "demo")
    with pytest.raises(InvalidRequest, match="turn one off"):
        await coach.daily.set_schedule(GUILD, CHANNEL + MAX_SCHEDULES, "09:00", "UTC", "demo")
    await coach.daily.set_schedule(GUILD, CHANNEL, "10:00", "UTC", "demo")  # changing one is always allowed
    await coach.daily.disable_schedule(GUILD, CHANNEL)
    await coach.daily.set_schedule(GUILD, CHANNEL + MAX_SCHEDULES, "09:00", "UTC", "demo")


@pytest.mark.parametrize("args", [("25:00", "UTC", "demo"), ("09:00", "Nowhere/City", "demo"), ("09:00", "UTC", "nope")])
async def test_bad_schedules_are_refused(coach, args):
    with pytest.raises(InvalidRequest):
        await coach.daily.set_schedule(GUILD, CHANNEL, *args)


async def test_due_posts_once_the_local_time_passes_until_sent(coach):
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "America/New_York", "demo")
    await coach.daily.set_schedule(GUILD2, CHANNEL, "09:00", "Asia/Tokyo", "demo")
    before = datetime(2026, 3, 2, 13, 59, tzinfo=timezone.utc)  # 08:59 New York, 22:59 Tokyo
    due = await coach.daily.due_posts(before)
    assert [(d.schedule.guild_id, d.local_date) for d in due] == [(GUILD2, DAY)]
    after = before + timedelta(minutes=1)
    due = {d.schedule.guild_id: d for d in await coach.daily.due_posts(after)}
    assert set(due) == {GUILD, GUILD2} and due[GUILD].post_at == after
    pick = await coach.daily.pick_daily(GUILD, DAY)
    assert not pick.sent
    await coach.daily.mark_daily_sent(GUILD, DAY, [1, 2])
    assert [d.schedule.guild_id for d in await coach.daily.due_posts(after)] == [GUILD2]
    await coach.daily.disable_schedule(GUILD2)
    assert await coach.daily.due_posts(after) == []


async def test_pick_is_idempotent_and_recorded_before_sending(coach, store):
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "demo")
    first = await coach.daily.pick_daily(GUILD, DAY)
    assert first == await coach.daily.pick_daily(GUILD, DAY)
    concurrent = await asyncio.gather(*(coach.daily.pick_daily(GUILD2, DAY, track="demo") for _ in range(4)))
    assert len({p.pick_id for p in concurrent}) == 1
    sent = await coach.daily.mark_daily_sent(GUILD, DAY, [555])
    assert sent.sent and sent.message_ids == (555,)
    assert (await coach.daily.mark_daily_sent(GUILD, DAY, [999])).message_ids == (555,)  # first call wins
    assert (await coach.daily.pick_daily(GUILD, DAY)).sent
    with pytest.raises(NotFound):
        await coach.daily.mark_daily_sent(GUILD, DAY + timedelta(days=1), [1])
    with pytest.raises(NotFound):
        await coach.daily.pick_daily(424242, DAY)  # no schedule and no track


async def test_rotation_covers_the_whole_track_without_repeats(store, settings, clock, tmp_path):
    catalog = make_catalog(tmp_path, {"rot": {"r-a": 3, "r-b": 1, "r-c": 2, "r-d": 1, "r-e": 1}})  # 5 bites, 8 questions
    coach = Coach(store, catalog, settings, clock=clock, enable_fuzzing=False)
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "rot")
    picks = [await coach.daily.pick_daily(GUILD, DAY + timedelta(days=n)) for n in range(16)]
    bites = [p.bite_id for p in picks]
    questions = [p.question.question_id for p in picks]
    assert len(set(bites[:5])) == 5  # no bite twice before every bite had a day
    assert len(set(questions[:8])) == 8  # no question twice before the track is exhausted
    assert sorted(questions[8:16]) == sorted(catalog.questions)  # then a second full round
    other = [(await coach.daily.pick_daily(GUILD2, DAY + timedelta(days=n), track="rot")).question.question_id for n in range(8)]
    assert sorted(other) == sorted(catalog.questions)  # each guild has its own rotation


async def test_same_pick_after_restart(database_url, catalog, settings, clock):
    async with Store(database_url) as first_store:
        first = await Coach(first_store, catalog, settings, clock=clock).daily.pick_daily(GUILD, DAY, track="demo")
    async with Store(database_url) as second_store:
        second = await Coach(second_store, catalog, settings, clock=clock, rng_seed=1).daily.pick_daily(GUILD, DAY)
    assert first == second


async def test_daily_answers_count_once_per_member_and_results_show_shares(coach, store):
    await coach.daily.set_schedule(GUILD, CHANNEL, "09:00", "UTC", "demo")
    pick = await coach.daily.pick_daily(GUILD, DAY)
    question = coach.catalog.questions[pick.question.question_id]
    right = pick.question.options.index(question.options[question.answer])
    wrong = (right + 1) % 4
    first = await coach.daily.record_daily_answer(GUILD, DAY, 1, right)
    assert first.counted and first.correct and first.xp_gained == XP_DAILY_CORRECT and first.correct_choice == right
    assert first.explanation == question.explanation and first.next_review is not None
    clicks = await asyncio.gather(*(coach.daily.record_daily_answer(GUILD, DAY, 2, wrong) for _ in range(3)))
    assert [c.outcome for c in clicks].count("ok") == 1
    again = await coach.daily.record_daily_answer(GUILD, DAY, 1, wrong)
    assert again.already_answered and again.choice == right and again.xp_gained == 0
    await coach.daily.record_daily_answer(GUILD, DAY, 3, wrong)
    assert (await coach.daily.record_daily_answer(GUILD, DAY + timedelta(days=1), 3, 0)).outcome == "not_found"

    results = await coach.daily.daily_results(GUILD, DAY)
    assert results.total == 3 and results.correct_choice == right
    assert results.counts[right] == 1 and results.counts[wrong] == 2
    assert results.shares[wrong] == pytest.approx(2 / 3)
    answers = await store.run(lambda db: db.scalar(select(func.count()).select_from(DailyAnswer)))
    assert answers == 3
    assert [r.user_id for r in await coach.progress.leaderboard(GUILD, "all")] == [1]


async def test_daily_results_without_answers(coach):
    await coach.daily.pick_daily(GUILD, DAY, track="demo")
    results = await coach.daily.daily_results(GUILD, DAY)
    assert results.total == 0 and results.shares == (0.0, 0.0, 0.0, 0.0)
    with pytest.raises(NotFound):
        await coach.daily.daily_results(GUILD, DAY + timedelta(days=3))


async def test_picks_store_dates_and_times_faithfully(coach, store, clock):
    await coach.daily.pick_daily(GUILD, DAY, track="demo")
    row = await store.run(lambda db: db.scalar(select(DailyPickRow)))
    assert row.local_date == DAY and row.created_at == clock() and row.created_at.tzinfo == timezone.utc
