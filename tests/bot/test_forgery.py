"""A fuzzing pass over the custom_id path: forged ids, pressed by another user in
another guild, never touch the victim's session, schedule or XP, never crash, and
every reply fits Discord's limits."""

import asyncio
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bot.render import limits
from bot.handlers import Actor, Handlers
from bot.services import build_services
from coach.config import load_settings
from content import load_catalog

TRACKS = Path(__file__).parents[1] / "e2e" / "tracks"
ALICE = Actor(user_id=101, guild_id=1001, name="alice")
MALLORY = Actor(user_id=666, guild_id=2002, name="mallory")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Alice's quiz (one question answered) and guild A's daily schedule and post, on
    their own event loop so hypothesis can drive the sync test body."""
    loop = asyncio.new_event_loop()
    tmp = tmp_path_factory.mktemp("forgery")
    conf = load_settings(database_url=f"sqlite+aiosqlite:///{tmp}/coach.db", data_dir=tmp, llm_enabled=False)
    services = loop.run_until_complete(build_services(conf, catalog=load_catalog(TRACKS)))
    handlers = Handlers(services)
    coach = services.coach

    async def setup():
        started = await coach.quiz.start_quiz(ALICE.user_id, ALICE.guild_id, "inference", 5)
        session = started.session.session_id
        await coach.quiz.answer(ALICE.user_id, session, 0, 1)
        await coach.daily.set_schedule(ALICE.guild_id, 42, "00:00", "UTC", "inference")
        today = coach.now().date()
        await coach.daily.pick_daily(ALICE.guild_id, today, "inference")
        await coach.daily.record_daily_answer(ALICE.guild_id, today, ALICE.user_id, 2)
        baseline = await coach.progress.stats(ALICE.user_id, ALICE.guild_id)
        return session, today, (baseline.answered, baseline.xp_total)

    session, today, alice_baseline = loop.run_until_complete(setup())
    yield loop, services, handlers, session, today, alice_baseline
    loop.run_until_complete(services.close())
    loop.close()


def forged_ids(session: int, today: date):
    sessions = st.sampled_from([str(session), str(session + 1), "0", "999999", "abc"])
    positions = st.integers(0, 40)
    choices = st.integers(0, 3)
    bites = st.sampled_from(["kv-cache", "quantization-basics", "nope", "continuous-batching"])
    days = st.sampled_from([today.strftime("%Y%m%d"), "20260101", "20261231", "20270229"])
    return st.one_of(
        st.builds(lambda s, p, c: f"q:{s}:{p}:{c}", sessions, positions, choices),
        st.builds(lambda s, p: f"n:{s}:{p}", sessions, positions),
        st.builds(lambda s: f"s:{s}", sessions),
        st.builds(lambda d, c: f"d:{d}:{c}", days, choices),
        st.builds(lambda b: f"b:{b}", bites),
        st.builds(lambda b: f"x:{b}", bites),
        st.builds(lambda b, h: f"g:{b}:{h}", bites, st.from_regex(r"[0-9a-f]{8}", fullmatch=True)),
        st.builds(lambda k, b: f"r:{k}:{b}", st.sampled_from("qb"), bites),
        st.from_regex(r"f:[0-9a-f]{6,16}", fullmatch=True),
        st.text(max_size=120),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_forged_custom_ids_change_nothing_of_anyone_else(world, data):
    loop, services, handlers, session, today, alice_baseline = world
    custom_id = data.draw(forged_ids(session, today))
    actor = data.draw(st.sampled_from([MALLORY, Actor(user_id=666, guild_id=ALICE.guild_id, name="mallory-here")]))
    coach = services.coach

    async def press_and_check():
        before = await coach.quiz.get_session(session)
        reply = await handlers.press(actor, custom_id)
        assert limits.problems(reply) == [], (custom_id, reply)
        after = await coach.quiz.get_session(session)
        assert (after.status, after.position, after.correct) == (before.status, before.position, before.correct)
        schedule = await coach.daily.get_schedule(ALICE.guild_id)
        assert (schedule.channel_id, schedule.enabled) == (42, True)
        alice = await coach.progress.stats(ALICE.user_id, ALICE.guild_id)
        assert (alice.answered, alice.xp_total) == alice_baseline, "alice's progress is untouched"
        mallory = await coach.progress.stats(MALLORY.user_id, MALLORY.guild_id)
        # mallory can only ever answer the daily question in alice's guild, once
        assert mallory.xp_total <= 10 and mallory.answered <= 1

    loop.run_until_complete(press_and_check())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(custom_id=st.text(max_size=120), note=st.text(max_size=5000))
def test_forged_modal_submissions_never_crash_or_overflow(world, custom_id, note):
    loop, services, handlers, *_ = world
    for modal_id in (custom_id, "rm:q:kv-cache-growth", "rm:b:nope"):
        reply = loop.run_until_complete(handlers.submit(MALLORY, modal_id, {"note": note}))
        assert limits.problems(reply) == []
