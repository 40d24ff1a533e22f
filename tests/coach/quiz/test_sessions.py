"""Quiz sessions on both backends: start, answer, finish, resume, restart, races, expiry."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from coach.engine import Coach
from coach.errors import InvalidRequest, NotOwner
from coach.progress.xp import XP_CORRECT_ANSWER, XP_FINISH_BONUS
from coach.store import Store
from coach.store.models import QuizAnswer, XpEvent
from tests.coach.helpers import correct_choice, wrong_choice

USER, OTHER, GUILD = 111, 222, 9000


async def count_rows(store, model, *where):
    return await store.run(lambda db: db.scalar(select(func.count()).select_from(model).where(*where)))


async def test_start_draws_distinct_questions_with_stored_shuffle(coach):
    started = await coach.quiz.start_quiz(USER, GUILD, "demo", count=8)
    state = started.session
    assert started.conflict is None and state.total == 8 and state.position == 0
    again = await coach.quiz.get_session(state.session_id)
    assert again.question == state.question  # same stem and same option order when read back
    async def ids(db):
        from coach.store.models import QuizSession
        return (await db.get(QuizSession, state.session_id)).question_ids
    question_ids = await coach.store.run(ids)
    assert len(set(question_ids)) == 8
    assert set(state.question.options) == set(coach.catalog.questions[state.question.question_id].options)


@pytest.mark.parametrize("count", [4, 31, 0])
async def test_count_outside_5_to_30_is_refused(coach, count):
    with pytest.raises(InvalidRequest):
        await coach.quiz.start_quiz(USER, GUILD, "demo", count=count)


async def test_unknown_track_is_refused(coach):
    with pytest.raises(InvalidRequest, match="unknown track"):
        await coach.quiz.start_quiz(USER, GUILD, "nope")


async def test_a_mixed_session_draws_from_every_track_and_says_so(tmp_path, store, settings, clock):
    from coach.quiz.service import MIX_TRACK
    from coach.store.models import QuizSession
    from tests.coach.helpers import make_catalog

    catalog = make_catalog(tmp_path, {"alpha": {f"a-{c}": 2 for c in "abc"}, "beta": {f"b-{c}": 2 for c in "abc"}})
    mixed = Coach(store, catalog, settings, clock=clock, rng_seed=7, enable_fuzzing=False)
    state = (await mixed.quiz.start_quiz(USER, GUILD, MIX_TRACK, count=12)).session
    row = await store.run(lambda db: db.get(QuizSession, state.session_id))
    assert row.track == MIX_TRACK and state.total == 12
    assert {catalog.bites[catalog.questions[q].bite_id].track for q in row.question_ids} == {"alpha", "beta"}


async def test_count_larger_than_track_uses_every_question_once(coach):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=30)).session
    assert state.total == 12


async def test_one_active_session_per_user_per_guild(coach):
    first = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    second = await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)
    assert second.session is None and second.conflict.session_id == first.session_id
    elsewhere = await coach.quiz.start_quiz(USER, GUILD + 1, "demo", count=5)  # another guild is fine
    assert elsewhere.session is not None
    await coach.quiz.abandon(USER, first.session_id)
    assert (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session is not None


async def test_concurrent_starts_make_one_session(coach):
    results = await asyncio.gather(*(coach.quiz.start_quiz(USER, GUILD, "demo", count=5) for _ in range(4)))
    sessions = {r.session.session_id for r in results if r.session}
    conflicts = {r.conflict.session_id for r in results if r.conflict}
    assert len(sessions) == 1 and conflicts <= sessions


async def test_answer_reports_result_explanation_bite_and_progress(coach):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    right = correct_choice(coach, state)
    result = await coach.quiz.answer(USER, state.session_id, 0, right)
    question = coach.catalog.questions[state.question.question_id]
    assert result.counted and result.correct and result.correct_choice == right
    assert result.explanation == question.explanation and result.bite_id == question.bite_id
    assert result.bite_title == coach.catalog.bites[question.bite_id].title
    assert (result.position, result.total, result.xp_gained, result.finished) == (0, 5, XP_CORRECT_ANSWER, False)
    after = await coach.quiz.get_session(state.session_id)
    assert after.position == 1 and after.correct == 1

    wrong = await coach.quiz.answer(USER, state.session_id, 1, wrong_choice(coach, after))
    assert wrong.counted and not wrong.correct and wrong.xp_gained == 0
    assert wrong.correct_choice == correct_choice(coach, after)


async def test_full_session_finishes_with_bonus_and_summary(coach, clock):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    missed = []
    for position in range(5):
        current = await coach.quiz.get_session(state.session_id)
        right = position % 2 == 0
        if not right:
            missed.append(current.question.bite_id)
        choice = correct_choice(coach, current) if right else wrong_choice(coach, current)
        result = await coach.quiz.answer(USER, state.session_id, position, choice)
        clock.advance(seconds=20)
    assert result.finished and result.bonus_xp == XP_FINISH_BONUS
    summary = await coach.quiz.finish(state.session_id)
    assert (summary.score, summary.answered, summary.total) == (3, 5, 5)
    assert summary.xp_earned == 3 * XP_CORRECT_ANSWER + XP_FINISH_BONUS and summary.bonus_xp == XP_FINISH_BONUS
    assert summary.streak == 1 and summary.status == "finished"
    assert sorted(w.bite_id for w in summary.weakest_bites for _ in range(w.wrong)) == sorted(missed)
    assert summary.reviews_due == 0  # nothing is due the same day
    assert await coach.quiz.finish(state.session_id) == summary  # idempotent: nothing credited twice
    assert await coach.quiz.active_session(USER, GUILD) is None


async def test_finishing_early_gives_no_bonus(coach):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))
    summary = await coach.quiz.finish(state.session_id)
    assert (summary.answered, summary.total, summary.bonus_xp, summary.xp_earned) == (1, 5, 0, XP_CORRECT_ANSWER)
    late = await coach.quiz.answer(USER, state.session_id, 1, 0)
    assert late.outcome == "finished"


async def test_another_user_cannot_answer_or_abandon(coach):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    result = await coach.quiz.answer(OTHER, state.session_id, 0, 0)
    assert result.not_owner and not result.counted
    with pytest.raises(NotOwner):
        await coach.quiz.abandon(OTHER, state.session_id)
    assert (await coach.quiz.get_session(state.session_id)).position == 0


async def test_unknown_session_and_out_of_order_positions(coach):
    assert (await coach.quiz.answer(USER, 424242, 0, 0)).outcome == "not_found"
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    assert (await coach.quiz.answer(USER, state.session_id, 3, 0)).outcome == "out_of_order"
    with pytest.raises(InvalidRequest):
        await coach.quiz.answer(USER, state.session_id, 0, 4)


async def test_double_click_counts_once(coach, store):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    right = correct_choice(coach, state)
    first, second = await asyncio.gather(
        coach.quiz.answer(USER, state.session_id, 0, right), coach.quiz.answer(USER, state.session_id, 0, right)
    )
    assert sorted([first.outcome, second.outcome]) == ["already_answered", "ok"]
    duplicate = first if first.already_answered else second
    assert duplicate.xp_gained == 0 and duplicate.correct and duplicate.choice == right
    assert await count_rows(store, QuizAnswer, QuizAnswer.session_id == state.session_id) == 1
    assert await count_rows(store, XpEvent, XpEvent.user_id == USER) == 1
    assert (await coach.quiz.get_session(state.session_id)).position == 1


async def test_many_concurrent_clicks_with_different_choices_count_once(coach, store):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    results = await asyncio.gather(*(coach.quiz.answer(USER, state.session_id, 0, c % 4) for c in range(6)))
    assert [r.outcome for r in results].count("ok") == 1
    kept = next(r for r in results if r.counted)
    assert all(r.choice == kept.choice for r in results)  # every click reports the answer that counted
    assert await count_rows(store, QuizAnswer, QuizAnswer.session_id == state.session_id) == 1


async def test_session_survives_restart(coach, database_url, catalog, settings, clock):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))
    before = await coach.quiz.get_session(state.session_id)
    await coach.store.dispose()

    restarted_store = Store(database_url)
    try:
        restarted = Coach(restarted_store, catalog, settings, clock=clock, rng_seed=99, enable_fuzzing=False)
        resumed = await restarted.quiz.active_session(USER, GUILD)
        assert resumed == before  # same position, same question, same option order
        result = await restarted.quiz.answer(USER, state.session_id, 1, correct_choice(restarted, resumed))
        assert result.counted and result.position == 1
        again = await restarted.quiz.answer(USER, state.session_id, 0, 0)  # a click on the pre-restart message
        assert again.already_answered
    finally:
        await restarted_store.dispose()


async def test_idle_session_expires(coach, clock, settings):
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    assert state.expires_at == state.updated_at + __import__("datetime").timedelta(minutes=30)
    clock.advance(minutes=settings.session_expiry_minutes - 1)
    assert (await coach.quiz.answer(USER, state.session_id, 0, 0)).counted  # activity pushes expiry back
    clock.advance(minutes=settings.session_expiry_minutes + 1)
    assert (await coach.quiz.answer(USER, state.session_id, 1, 0)).expired
    assert (await coach.quiz.get_session(state.session_id)).status == "expired"
    assert (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session is not None


async def test_expire_stale_sessions_sweeps_only_idle_ones(coach, clock):
    old = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    clock.advance(minutes=20)
    fresh = (await coach.quiz.start_quiz(OTHER, GUILD, "demo", count=5)).session
    clock.advance(minutes=15)
    assert await coach.quiz.expire_stale_sessions() == 1
    assert (await coach.quiz.get_session(old.session_id)).status == "expired"
    assert (await coach.quiz.get_session(fresh.session_id)).status == "active"
    assert await coach.quiz.expire_stale_sessions() == 0


async def test_draw_favours_unseen_and_missed_questions(coach, clock):
    """After getting 6 questions right, the next 6-question quiz mostly avoids them."""
    first = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=6)).session
    known = set()
    for position in range(6):
        current = await coach.quiz.get_session(first.session_id)
        known.add(current.question.question_id)
        await coach.quiz.answer(USER, first.session_id, position, correct_choice(coach, current))
    overlaps = []
    for _ in range(6):
        state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=6)).session
        async def ids(db, sid=state.session_id):
            from coach.store.models import QuizSession
            return (await db.get(QuizSession, sid)).question_ids
        overlaps.append(len(known & set(await coach.store.run(ids))))
        await coach.quiz.abandon(USER, state.session_id)
    # Uniform draws would overlap 3 on average; weights 4:1 bring it near 1.
    assert sum(overlaps) / len(overlaps) < 2.0


async def test_questions_with_other_than_four_options(store, settings, clock, tmp_path):
    import yaml

    from content import load_catalog
    from tests.coach.helpers import bite_doc, write_track

    write_track(tmp_path, "odd", {f"odd-{c}": 1 for c in "abcde"})
    for path in (tmp_path / "odd").glob("odd-*.yaml"):
        doc = bite_doc(path.stem, 1)
        doc["questions"][0].update(options=["yes", "no", "maybe"], answer=2, distractor_notes={0: "x", 1: "y"})
        path.write_text(yaml.safe_dump(doc))
    coach = Coach(store, load_catalog(tmp_path), settings, clock=clock, rng_seed=3, enable_fuzzing=False)
    state = (await coach.quiz.start_quiz(USER, GUILD, "odd", count=5)).session
    assert len(state.question.options) == 3
    with pytest.raises(InvalidRequest):
        await coach.quiz.answer(USER, state.session_id, 0, 3)
    result = await coach.quiz.answer(USER, state.session_id, 0, state.question.options.index("maybe"))
    assert result.correct and result.correct_choice == state.question.options.index("maybe")
    pick = await coach.daily.pick_daily(GUILD, clock().date(), track="odd")
    assert sorted(pick.question.options) == ["maybe", "no", "yes"]


async def test_bite_quiz_asks_that_bites_questions(coach):
    state = (await coach.quiz.start_bite_quiz(USER, GUILD, "bite-c")).session
    own = {q.id for q in coach.catalog.questions_for("bite-c")}

    async def ids(db):
        from coach.store.models import QuizSession
        return (await db.get(QuizSession, state.session_id)).question_ids

    assert set(await coach.store.run(ids)) == own and state.total == len(own)  # no related bites here
    with pytest.raises(Exception, match="unknown bite"):
        await coach.quiz.start_bite_quiz(USER, GUILD + 1, "no-such-bite")


def test_the_words_used_in_place_of_a_track_can_never_be_a_track_id():
    from bot.command_table import ANY_TRACK
    from coach.quiz.service import MIX_TRACK, REVIEW_TRACK
    from content.schema import RESERVED_TRACK_IDS, Track

    assert {REVIEW_TRACK, MIX_TRACK, ANY_TRACK} <= set(RESERVED_TRACK_IDS)
    for word in RESERVED_TRACK_IDS:
        with pytest.raises(ValueError, match="a word the commands use"):
            Track(id=word, title="Some track")
