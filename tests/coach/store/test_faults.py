"""Database faults: a locked SQLite file, PostgreSQL connections killed or cut
mid-transaction, and migrations run on a database holding a live session.
Each checks what the user gets and that nothing is lost or counted twice."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from datetime import date

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from coach.engine import Coach
from coach.migrations import alembic_config, head_revision
from coach.store import Store
from coach.store.models import DailyAnswer, QuizAnswer, QuizSession, XpEvent
from tests.coach.helpers import TickingClock, correct_choice
from tests.coach.tcp_proxy import CuttingProxy
from tests.fixtures.db import pg_admin, pg_module_database, pg_url_for

USER, OTHER, GUILD = 111, 222, 9000


def new_coach(store, catalog, settings, clock, seed=7):
    return Coach(store, catalog, settings, clock=clock, rng_seed=seed, enable_fuzzing=False)


async def answers_and_xp(store, session_id):
    answers = await store.run(
        lambda db: db.scalar(select(func.count()).select_from(QuizAnswer).where(QuizAnswer.session_id == session_id))
    )
    xp = await store.run(lambda db: db.scalar(select(func.coalesce(func.sum(XpEvent.amount), 0))))
    return answers, xp


# -- SQLite: a second writer holds the lock ----------------------------------
@pytest.fixture
async def sqlite_url(tmp_path):
    url = f"sqlite+aiosqlite:///{tmp_path / 'locked.db'}"
    async with Store(url) as store:
        await store.upgrade()
    return url, tmp_path / "locked.db"


@contextlib.asynccontextmanager
async def quiz_beside_a_held_write_lock(sqlite_url, catalog, settings, clock, **store_options):
    """A started quiz on the SQLite file while a second connection holds its write lock.
    The test ends that writer when it wants to (COMMIT or ROLLBACK); closing it on exit
    rolls back whatever is still open."""
    url, path = sqlite_url
    async with Store(url, **store_options) as store:
        coach = new_coach(store, catalog, settings, clock)
        state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # a second writer takes the write lock and sits on it
        try:
            yield store, coach, state, other
        finally:
            other.close()


async def test_sqlite_writer_waits_for_a_second_writers_lock(sqlite_url, catalog, settings, clock):
    async with quiz_beside_a_held_write_lock(sqlite_url, catalog, settings, clock) as (store, coach, state, other):
        other.execute("UPDATE users SET reminders = reminders")
        pending = asyncio.create_task(coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state)))
        await asyncio.sleep(0.6)
        assert not pending.done()  # waiting on the busy timeout, not failing
        other.execute("COMMIT")
        result = await asyncio.wait_for(pending, 10)
        assert result.counted and result.correct
        assert await answers_and_xp(store, state.session_id) == (1, 10)


async def test_sqlite_lock_held_past_the_timeout_fails_cleanly_then_counts_once(sqlite_url, catalog, settings, clock):
    async with quiz_beside_a_held_write_lock(
        sqlite_url, catalog, settings, clock, busy_timeout_ms=150
    ) as (store, coach, state, other):
        with pytest.raises(OperationalError, match="locked"):  # first try and its one retry both time out
            await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))
        other.execute("ROLLBACK")
        assert await answers_and_xp(store, state.session_id) == (0, 0)  # nothing half-written
        result = await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))  # the user clicks again
        assert result.counted
        assert await answers_and_xp(store, state.session_id) == (1, 10)


async def test_sqlite_reads_proceed_while_a_second_writer_holds_the_lock(sqlite_url, catalog, settings, clock):
    async with quiz_beside_a_held_write_lock(
        sqlite_url, catalog, settings, clock, busy_timeout_ms=200
    ) as (_, coach, state, _other):
        assert (await coach.quiz.get_session(state.session_id)).position == 0
        assert (await coach.progress.stats(USER, GUILD)).xp_total == 0
        assert await coach.progress.leaderboard(GUILD, "all") == []


async def test_two_processes_on_one_sqlite_file(sqlite_url, catalog, settings, clock):
    url, _ = sqlite_url
    async with Store(url) as first, Store(url) as second:
        bot_a, bot_b = new_coach(first, catalog, settings, clock), new_coach(second, catalog, settings, clock)
        mine = (await bot_a.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
        theirs = (await bot_b.quiz.start_quiz(OTHER, GUILD, "demo", count=5)).session
        right = correct_choice(bot_a, mine)
        results = await asyncio.gather(
            bot_a.quiz.answer(USER, mine.session_id, 0, right),
            bot_b.quiz.answer(USER, mine.session_id, 0, right),  # the same click delivered to both
            bot_b.quiz.answer(OTHER, theirs.session_id, 0, correct_choice(bot_b, theirs)),
        )
        assert sorted(r.outcome for r in results[:2]) == ["already_answered", "ok"] and results[2].counted
        assert (await answers_and_xp(first, mine.session_id))[0] == 1


# -- PostgreSQL: killed and cut connections -----------------------------------
@pytest.fixture
async def pg_url(request):
    return await pg_module_database(request.module.__name__)


async def terminate_backends(database: str) -> int:
    admin = await pg_admin()
    try:
        rows = await admin.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
        return len(rows)
    finally:
        await admin.close()


async def test_pg_backends_terminated_mid_session_lose_nothing(pg_url, catalog, settings, clock):
    async with Store(pg_url_for(pg_url)) as store:
        coach = new_coach(store, catalog, settings, clock)
        state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
        for position in range(5):
            assert await terminate_backends(pg_url) >= 1  # every pooled connection is now dead
            current = await coach.quiz.get_session(state.session_id)
            assert current.position == position  # the session resumes where it was
            result = await coach.quiz.answer(USER, state.session_id, position, correct_choice(coach, current))
            assert result.counted
        assert result.finished
        assert await answers_and_xp(store, state.session_id) == (5, 5 * 10 + 20)


@pytest.fixture
async def proxied(pg_url, catalog, settings):
    upstream = make_url(pg_url_for(pg_url))
    proxy = await CuttingProxy(upstream.host or "127.0.0.1", upstream.port or 5432).start()
    store = Store(upstream.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False))
    yield proxy, store, new_coach(store, catalog, settings, TickingClock())
    await store.dispose()
    await proxy.stop()


async def test_pg_connection_cut_before_the_answer_is_written_is_retried(proxied):
    proxy, store, coach = proxied
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    proxy.arm(b"INSERT INTO quiz_answers")  # the network dies as the answer is sent
    result = await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))
    assert proxy.cuts == 1
    assert result.counted and result.xp_gained == 10  # the user sees a normal answer
    assert await answers_and_xp(store, state.session_id) == (1, 10)
    assert (await coach.quiz.get_session(state.session_id)).position == 1


async def test_pg_connection_cut_after_commit_is_not_counted_twice(proxied):
    proxy, store, coach = proxied
    state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
    await coach.quiz.answer(USER, state.session_id, 0, correct_choice(coach, state))
    current = await coach.quiz.get_session(state.session_id)
    proxy.arm(b"COMMIT", forward=True)  # the commit lands, but its reply never arrives
    result = await coach.quiz.answer(USER, state.session_id, 1, correct_choice(coach, current))
    assert proxy.cuts == 1
    assert result.counted and result.xp_gained == 10  # recognised as this request's own write
    assert await answers_and_xp(store, state.session_id) == (2, 20)
    again = await coach.quiz.answer(USER, state.session_id, 1, correct_choice(coach, current))
    assert again.already_answered and again.xp_gained == 0


async def test_pg_cut_after_a_start_commits_still_gives_the_user_their_session(proxied):
    proxy, store, coach = proxied
    proxy.arm(b"COMMIT", forward=True)
    started = await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)
    assert proxy.cuts == 1
    assert started.session is not None and started.conflict is None  # not "you already have a quiz"
    sessions = await store.run(lambda db: db.scalar(select(func.count()).select_from(QuizSession)))
    assert sessions == 1
    later = await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)  # a real second /quiz is a conflict
    assert later.conflict.session_id == started.session.session_id


async def test_pg_cut_after_a_daily_answer_commits_counts_once_as_the_users_own(proxied):
    proxy, store, coach = proxied
    day = date(2026, 3, 2)
    pick = await coach.daily.pick_daily(GUILD, day, track="demo")
    question = coach.catalog.questions[pick.question.question_id]
    right = pick.question.options.index(question.options[question.answer])
    proxy.arm(b"COMMIT", forward=True)
    result = await coach.daily.record_daily_answer(GUILD, day, USER, right)
    assert proxy.cuts == 1
    assert result.counted and result.correct and result.xp_gained == 10
    again = await coach.daily.record_daily_answer(GUILD, day, USER, right)
    assert again.already_answered and again.xp_gained == 0
    rows = await store.run(lambda db: db.scalar(select(func.count()).select_from(DailyAnswer)))
    xp = await store.run(lambda db: db.scalar(select(func.sum(XpEvent.amount))))
    assert (rows, xp) == (1, 10)


# -- migrations on a database with data ---------------------------------------
async def migrate(store: Store, direction: str, revision: str) -> None:
    def run(sync_connection):
        from alembic import command

        config = alembic_config(store.url)
        config.attributes["connection"] = sync_connection
        getattr(command, direction)(config, revision)

    async with store.engine.begin() as connection:
        await connection.run_sync(run)


async def test_migrations_keep_a_live_session_and_its_xp(empty_database_url, catalog, settings, clock):
    async with Store(empty_database_url) as store:
        await store.upgrade()
        coach = new_coach(store, catalog, settings, clock)
        state = (await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)).session
        for position in range(2):
            current = await coach.quiz.get_session(state.session_id)
            await coach.quiz.answer(USER, state.session_id, position, correct_choice(coach, current))
        await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 10, None)
        before = await coach.quiz.get_session(state.session_id)
        stats_before = await coach.progress.stats(USER, GUILD)

        await migrate(store, "downgrade", "0001")  # back to the first schema, data in place
        assert await store.current_revision() == "0001"
        await store.upgrade()  # and forward again, as a deploy would
        assert await store.current_revision() == head_revision()

    async with Store(empty_database_url) as restarted:  # the bot restarts on the migrated database
        coach = new_coach(restarted, catalog, settings, clock, seed=3)
        resumed = await coach.quiz.active_session(USER, GUILD)
        assert resumed == before
        assert (await coach.progress.stats(USER, GUILD)).xp_total == stats_before.xp_total
        assert (await coach.quiz.answer(USER, state.session_id, 1, 0)).already_answered  # constraints survived
        result = await coach.quiz.answer(USER, state.session_id, 2, correct_choice(coach, resumed))
        assert result.counted
        second = await coach.quiz.start_quiz(USER, GUILD, "demo", count=5)  # one-active index survived
        assert second.conflict is not None and second.conflict.session_id == state.session_id
        assert await answers_and_xp(restarted, state.session_id) == (3, stats_before.xp_total + 10)


async def test_attempts_from_before_the_new_scale_keep_their_score_marked_old(empty_database_url, catalog, settings, clock):
    from datetime import datetime, timezone

    from sqlalchemy import text

    from coach.store.models import Attempt

    async with Store(empty_database_url) as store:
        await store.upgrade()
        await migrate(store, "downgrade", "0002")  # a database from before the interviewer-anchored scale
        old_row = text("INSERT INTO attempts (user_id, guild_id, bite_id, score, grader, latency_ms, created_at) "
                       "VALUES (:u, :g, 'bite-a', 2, 'embedding', 10, :t)")
        await store.run(lambda db: db.execute(old_row, {"u": USER, "g": GUILD, "t": datetime(2026, 11, 1, tzinfo=timezone.utc)}))
        await store.upgrade()
        coach = new_coach(store, catalog, settings, clock)
        await coach.progress.record_attempt(USER, GUILD, "bite-a", 3, "llm", 10, None,
                                   versions={"rubric_version": "r1", "grader_version": "g1"})
        rows = await store.run(lambda db: db.execute(
            select(Attempt.score, Attempt.scale_version, Attempt.rubric_version).order_by(Attempt.id)))
        assert [tuple(r) for r in rows.all()] == [(2, 1, None), (3, 2, "r1")]


async def test_a_task_started_inside_a_write_transaction_takes_its_own_turn(sqlite_url):
    """A task created inside `Store.run` inherits the transaction's context. If it writes later,
    beside another writer, it must wait for its turn like any writer, not skip the turn because
    the context says "already writing" (which would BEGIN IMMEDIATE on the loop while the other
    writer holds the file lock: "database is locked" once the busy timeout ran out)."""
    url, _ = sqlite_url
    async with Store(url, busy_timeout_ms=300) as store:
        outer_done, child = asyncio.Event(), None

        async def writes_later():
            await outer_done.wait()
            return await store.run(lambda db: db.execute(text("UPDATE quiz_sessions SET status = status")))

        async def spawns(db):
            nonlocal child
            child = asyncio.create_task(writes_later())
            await db.execute(text("SELECT 1"))

        await store.run(spawns)
        holding, release = asyncio.Event(), asyncio.Event()

        async def holds_the_turn(db):
            await db.execute(text("UPDATE quiz_sessions SET status = status"))
            holding.set()
            await release.wait()  # another writer mid-transaction, as during a busy quiz

        other = asyncio.create_task(store.run(holds_the_turn))
        await holding.wait()
        outer_done.set()
        await asyncio.sleep(0.5)  # the child has tried to write for longer than the busy timeout
        release.set()
        await other
        await child  # raised OperationalError("database is locked") when the turn was skipped


async def test_a_servers_one_schedule_keeps_its_posts_and_answers_when_schedules_go_per_channel(
        empty_database_url, catalog, settings, clock):
    """0010: picks and answers made under the one schedule per server belong to its channel."""
    from datetime import date

    from sqlalchemy import text

    day, channel = date(2026, 11, 30), 4242
    async with Store(empty_database_url) as store:
        await store.upgrade()
        await migrate(store, "downgrade", "0009")
        now = {"t": clock()}
        for statement in (
            "INSERT INTO daily_schedules (guild_id, channel_id, local_time, timezone, track, enabled, updated_at, "
            "week_start) VALUES (:g, :c, '09:00', 'UTC', 'demo', true, :t, 0)",
            "INSERT INTO daily_picks (guild_id, local_date, track, bite_id, question_id, option_order, created_at) "
            "VALUES (:g, :d, 'demo', 'bite-a', 'bite-a-q1', '[0, 1, 2, 3]', :t)",
            "INSERT INTO daily_answers (guild_id, local_date, user_id, choice, correct, answered_at) "
            "VALUES (:g, :d, :u, 1, false, :t)",
        ):
            await store.run(lambda db, s=statement: db.execute(text(s), {"g": GUILD, "c": channel, "d": day,
                                                                          "u": USER, **now}))
        await store.upgrade()
        coach = new_coach(store, catalog, settings, clock)
        assert (await coach.daily.get_schedule(GUILD, channel)).track == "demo"
        results = await coach.daily.daily_results(GUILD, day, channel_id=channel)
        assert (results.total, results.counts[1]) == (1, 1)
        again = await coach.daily.record_daily_answer(GUILD, day, USER, 2, channel_id=channel)
        assert again.outcome == "already_answered" and again.choice == 1
        # A second channel of the same server now has a schedule and a post of its own.
        await coach.daily.set_schedule(GUILD, channel + 1, "10:00", "UTC", "demo")
        assert (await coach.daily.pick_daily(GUILD, day, channel_id=channel + 1)).channel_id == channel + 1
