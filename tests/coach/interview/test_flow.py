"""A mock interview through the real grading pipeline (the embedding judge over the shipped
track) and a real store, on SQLite and PostgreSQL: turns, rescues, the scorecard, limits."""

import pytest
import pytest_asyncio
from sqlalchemy import func, select

from coach.engine import Coach
from coach.errors import NotOwner
from coach.interview.flow import InterviewFlow
from coach.store.models import Attempt, InterviewRow, XpEvent

USER, OTHER, GUILD = 11, 12, 5
WEAK = "um it caches some stuff from earlier so generating text gets faster, I think"
KEYS_AND_VALUES = ("It holds the key and value vectors of every previous token, at every layer and for each KV head, "
                   "so they are not recomputed.")


@pytest_asyncio.fixture
async def coach(store, shipped_catalog, settings, clock):
    return Coach(store, shipped_catalog, settings, clock=clock, rng_seed=7, enable_fuzzing=False)


@pytest.fixture
def flow(coach, shipped_grader):
    return InterviewFlow(coach, shipped_grader)


async def start_kv(flow, user=USER):
    step = await flow.start(user, GUILD, "inference", 1, first="kv-cache")
    assert step.outcome == "asked" and step.state.asking == (0, None)
    assert flow.question_text(step.state) == flow.catalog.bites["kv-cache"].prompt
    return step


async def test_a_weak_answer_is_probed_and_a_good_follow_up_is_rescued(flow, coach, store):
    step = await start_kv(flow)
    step = await flow.answer(USER, step.state.interview_id, 0, WEAK)
    assert step.outcome == "asked" and step.line == "missed"
    question, point = step.state.asking
    assert question == 0 and flow.catalog.bites["kv-cache"].key_points[point].kind == "core"
    target = point
    step = await flow.answer(USER, step.state.interview_id, 1, flow.catalog.bites["kv-cache"].key_points[target].point)
    assert step.line == "landed"
    while step.outcome == "asked":
        step = await flow.pass_turn(USER, step.state.interview_id, step.state.turn)
    card = step.scorecard
    assert step.outcome == "finished" and step.state.status == "finished"
    assert card.questions[0].by_outcome("rescued") == [flow.catalog.bites["kv-cache"].key_points[target].point]
    assert card.signal in ("lean_no", "strong_no") and card.coaching
    # The first answer is an attempt like an explanation (mastery, review); the rescue earned XP once.
    async def counts(db):
        attempts = await db.scalar(select(func.count()).select_from(Attempt).where(Attempt.user_id == USER))
        xp = await db.scalar(select(func.coalesce(func.sum(XpEvent.amount), 0))
                             .where(XpEvent.source_key.like(f"interview:{step.state.interview_id}:%")))
        return attempts, xp
    assert await store.read(counts) == (1, 5)
    assert step.state.xp == 5


async def test_a_turn_is_stored_once_however_often_it_is_answered(flow, coach):
    step = await start_kv(flow)
    interview = step.state.interview_id
    first = await flow.answer(USER, interview, 0, WEAK)
    again = await flow.answer(USER, interview, 0, "a second press of the same turn with other words")
    assert again.outcome == "duplicate" and again.state.turn == first.state.turn == 1
    assert len((await coach.interviews.get(interview, USER)).turns) == 1
    with pytest.raises(NotOwner):
        await flow.answer(OTHER, interview, 1, "someone else's click")


async def test_one_open_interview_per_member_and_a_restart_continues_it(flow, coach, store, shipped_catalog, settings,
                                                                         clock, shipped_grader):
    step = await start_kv(flow)
    assert (await flow.start(USER, GUILD, "inference", 2)).outcome == "already_open"
    restarted = InterviewFlow(Coach(store, shipped_catalog, settings, clock=clock, rng_seed=8), shipped_grader)
    resumed = await restarted.open_for(USER)
    assert resumed.outcome == "asked" and resumed.state.interview_id == step.state.interview_id
    after = await restarted.answer(USER, step.state.interview_id, 0, WEAK)
    assert after.state.turn == 1


async def test_bad_input_gets_a_message_and_keeps_the_turn(flow):
    step = await start_kv(flow)
    interview = step.state.interview_id
    for text in ("", "   \n\t ", "\x00\x01\x02"):
        bad = await flow.answer(USER, interview, 0, text)
        assert bad.outcome == "bad_input" and "empty" in bad.message and bad.state.turn == 0
    long = await flow.answer(USER, interview, 0, (KEYS_AND_VALUES + " ") * 200)  # ~20,000 characters
    assert long.outcome in ("asked", "finished") and long.state.turn == 1


async def test_an_idle_turn_ends_the_interview_and_keeps_what_was_answered(flow, clock):
    step = await start_kv(flow)
    step = await flow.answer(USER, step.state.interview_id, 0, WEAK)
    clock.advance(minutes=16)
    lapsed = await flow.open_for(USER)
    assert lapsed.outcome == "finished" and lapsed.state.status == "expired"
    assert lapsed.scorecard.questions[0].score is not None and lapsed.scorecard.ended == "expired"
    late = await flow.answer(USER, step.state.interview_id, 1, KEYS_AND_VALUES)
    assert late.outcome == "finished" and len(late.state.turns) == 1  # nothing stored after it ended
    assert (await flow.start(USER, GUILD, "inference", 1)).outcome == "asked"  # a new one may start


async def test_forget_erases_interviews(flow, coach, store):
    step = await start_kv(flow)
    await flow.end(USER, step.state.interview_id)
    await coach.account.forget(USER)
    left = await store.read(lambda db: db.scalar(select(func.count()).select_from(InterviewRow)))
    assert left == 0


async def test_the_bites_are_the_weakest_spread_over_tags(flow, coach):
    first_pick = await flow.pick_bites(USER, "inference", 3)
    groups = [flow.catalog.bites[b].tags[0] for b in first_pick]
    assert len(first_pick) == 3 and len(set(groups)) == 3
    await coach.progress.record_attempt(USER, GUILD, first_pick[0], 4, "embedding", 10, None)
    assert first_pick[0] not in await flow.pick_bites(USER, "inference", 3)  # practised well: not the weakest
