"""Quiz and review sessions: start, resume, answer, finish, abandon, expire.

All state is in the database, so a session survives a restart of the bot. One
active session per (user, guild) is enforced by a partial unique index.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from coach.catalog import bite_title, question_view, require_track
from coach.errors import InvalidRequest, NotFound, NotOwner
from coach.progress.ledger import Ledger
from coach.progress.review import BITE, QUESTION, rating_for_answer
from coach.progress.xp import XP_CORRECT_ANSWER, XP_FINISH_BONUS
from coach.quiz.rules import DEFAULT_COUNT, MAX_COUNT, MIN_COUNT, draw_questions, shown_index, shuffled_order
from coach.results import AnswerResult, QuizState, StartResult, Summary, WeakBite
from coach.store import Store
from coach.store.models import ACTIVE, QuizAnswer, QuizSession, ReviewCard
from content import Catalog

_SESSIONS = QuizSession.__table__
_ANSWERS = QuizAnswer.__table__
REVIEW_TRACK = "review"
MIX_TRACK = "mix"  # a session drawn from every track (`/quiz` with no track and no preference)
BITE_QUIZ_COUNT = 5  # "Quiz me" on a bite: a short session
FINISHED, ABANDONED, EXPIRED = "finished", "abandoned", "expired"


def _answer_key(session_id: int, position: int) -> str:
    return f"quiz:{session_id}:{position}"


def _finish_key(session_id: int) -> str:
    return f"quiz:{session_id}:finish"


class QuizService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime],
                 rng: random.Random, session_expiry: timedelta):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now
        self.rng = rng  # draws and option orders (seeded in tests)
        self.session_expiry = session_expiry

    # -- reading ---------------------------------------------------------
    def quiz_state(self, row: QuizSession) -> QuizState:
        total = len(row.question_ids)
        view = None
        if row.position < total:
            view = question_view(self.catalog, row.question_ids[row.position], row.option_orders[row.position],
                                 row.position, total)
        return QuizState(
            session_id=row.id, user_id=row.user_id, guild_id=row.guild_id, track=row.track, kind=row.kind,
            status=row.status, position=row.position, total=total, correct=row.correct_count, question=view,
            created_at=row.created_at, updated_at=row.updated_at, expires_at=row.updated_at + self.session_expiry,
        )

    def _is_stale(self, row: QuizSession) -> bool:
        return row.status == ACTIVE and row.updated_at + self.session_expiry <= self.now()

    async def _active_row(self, db: AsyncSession, user_id: int, guild_id: int) -> QuizSession | None:
        """The user's active session in the guild; a stale one is expired on the way."""
        row = (
            await db.execute(
                select(QuizSession)
                .where(QuizSession.user_id == user_id, QuizSession.guild_id == guild_id, QuizSession.status == ACTIVE)
                .with_for_update()
            )
        ).scalar_one_or_none()
        if row is not None and self._is_stale(row):
            row.status = EXPIRED
            await db.flush()
            return None
        return row

    async def active_session(self, user_id: int, guild_id: int) -> QuizState | None:
        async def work(db):
            row = await self._active_row(db, user_id, guild_id)
            return self.quiz_state(row) if row else None

        return await self.store.run(work)

    async def get_session(self, session_id: int) -> QuizState | None:
        """One Core SELECT, no ORM object: the row's columns are what `quiz_state` reads
        (every Next click comes through here)."""
        async def work(db):
            row = (await db.execute(select(_SESSIONS).where(_SESSIONS.c.id == session_id))).first()
            return self.quiz_state(row) if row else None

        return await self.store.read(work)

    # -- starting --------------------------------------------------------
    async def start_quiz(self, user_id: int, guild_id: int, track: str, count: int = DEFAULT_COUNT) -> StartResult:
        """A new session of `count` questions from `track` (from every track when it is "mix",
        from due cards when it is "review"), or the conflicting active session if there is one.
        The session records which."""
        if track == REVIEW_TRACK:
            return await self.start_review(user_id, guild_id, count)
        self._check_count(count)
        pool = (list(self.catalog.questions) if track == MIX_TRACK
                else [q.id for q in require_track(self.catalog, track).questions])
        if not pool:
            raise InvalidRequest(f"track {track!r} has no questions yet")

        async def choose(db):
            rows = await db.execute(
                select(ReviewCard.item_id, ReviewCard.last_rating)
                .where(ReviewCard.user_id == user_id, ReviewCard.kind == QUESTION)
            )
            last_result = {item: rating != 1 for item, rating in rows}  # 1 = Rating.Again
            return draw_questions(pool, last_result, count, self.rng)

        return await self._start(user_id, guild_id, track, "quiz", choose)

    async def start_bite_quiz(self, user_id: int, guild_id: int, bite_id: str, count: int = BITE_QUIZ_COUNT) -> StartResult:
        """A short session on one bite: its own questions first, then its related bites'
        (each group in a random order), or the conflicting active session if there is one."""
        self._check_count(count)
        bite = self.catalog.bites.get(bite_id)
        if bite is None:
            raise NotFound(f"unknown bite {bite_id!r}")
        own = [q.id for q in self.catalog.questions_for(bite_id)]
        related = [q.id for other in bite.related if other in self.catalog.bites
                   for q in self.catalog.questions_for(other)]
        if not own and not related:
            raise InvalidRequest(f"bite {bite_id!r} has no questions yet")
        self.rng.shuffle(own)
        self.rng.shuffle(related)
        chosen = list(dict.fromkeys(own + related))[:count]

        async def choose(db):
            return chosen

        return await self._start(user_id, guild_id, bite.track, "quiz", choose)

    async def start_review(self, user_id: int, guild_id: int, count: int = DEFAULT_COUNT) -> StartResult:
        """A session over the user's due question cards (most overdue first); due
        bite cards come back in `explain_again`. Nothing due: both session fields None."""
        self._check_count(count)
        due = await self.store.read(lambda db: self.ledger.due_items(db, user_id))
        questions = [item.item_id for item in due if item.kind == QUESTION][:count]
        explain_again = tuple(item for item in due if item.kind == BITE)
        if not questions:
            conflict = await self.active_session(user_id, guild_id)
            return StartResult(conflict=conflict, explain_again=explain_again)

        async def choose(db):
            return questions

        result = await self._start(user_id, guild_id, REVIEW_TRACK, "review", choose)
        return StartResult(session=result.session, conflict=result.conflict, explain_again=explain_again)

    def _check_count(self, count: int) -> None:
        if not isinstance(count, int) or not MIN_COUNT <= count <= MAX_COUNT:
            raise InvalidRequest(f"count must be between {MIN_COUNT} and {MAX_COUNT}")

    async def _start(self, user_id, guild_id, track, kind, choose) -> StartResult:
        called_at = self.now()

        async def work(db):
            existing = await self._active_row(db, user_id, guild_id)
            if existing is not None:
                # Created after this call began, for the same track: our own commit whose
                # reply was lost (then retried), or a double-clicked /quiz. Not a conflict.
                if existing.created_at > called_at and (existing.track, existing.kind) == (track, kind):
                    return StartResult(session=self.quiz_state(existing))
                return StartResult(conflict=self.quiz_state(existing))
            question_ids = await choose(db)
            orders = [shuffled_order(self.rng, len(self.catalog.questions[q].options)) for q in question_ids]
            now = self.now()
            row = QuizSession(
                user_id=user_id, guild_id=guild_id, track=track, kind=kind, status=ACTIVE, question_ids=question_ids,
                option_orders=orders, position=0, correct_count=0, created_at=now, updated_at=now,
            )
            db.add(row)
            await db.flush()
            return StartResult(session=self.quiz_state(row))

        try:
            return await self.store.run(work)
        except IntegrityError:  # another start won the race for the one active slot: report it
            return await self.store.run(work)

    # -- answering -------------------------------------------------------
    async def answer(self, user_id: int, session_id: int, position: int, choice: int) -> AnswerResult:
        """Answer question `position` with option `choice` (shown order).

        Never raises for a click that cannot count; see `AnswerResult.outcome`.
        Counted at most once per (session, position), even for concurrent clicks.
        """
        if not isinstance(choice, int) or choice < 0:
            raise InvalidRequest("choice must be an option index")
        request_id = uuid.uuid4().hex

        async def work(db):
            row = await db.get(QuizSession, session_id, with_for_update=True, populate_existing=True)
            if row is None:
                return AnswerResult("not_found", position, 0)
            total = len(row.question_ids)
            if row.user_id != user_id:
                return AnswerResult("not_owner", position, total)
            if 0 <= position < row.position:
                return await self._stored_answer(db, row, position, request_id)
            if self._is_stale(row):
                row.status = EXPIRED
                return AnswerResult("expired", position, total)
            if row.status != ACTIVE:
                return AnswerResult("finished" if row.status == FINISHED else "expired", position, total)
            if position != row.position:
                return AnswerResult("out_of_order", position, total)
            return await self._record_answer(db, row, position, choice, request_id)

        try:
            return await self.store.run(work)
        except IntegrityError:
            # A concurrent click on another connection inserted first; run again and
            # the stored-answer branch reports it.
            return await self.store.run(work)

    async def _record_answer(self, db, row: QuizSession, position: int, choice: int, request_id: str) -> AnswerResult:
        now = self.now()
        total = len(row.question_ids)
        question = self.catalog.questions.get(row.question_ids[position])
        order = row.option_orders[position]
        if question is None:
            raise NotFound(f"question {row.question_ids[position]!r} is no longer in the catalog")
        if choice >= len(order):
            raise InvalidRequest(f"choice must be 0-{len(order) - 1}")
        shown = self.quiz_state(row)  # before it moves on: the answered question
        correct = order[choice] == question.answer
        finished = position + 1 == total
        # Every statement first, the ORM objects changed last: their changes go out in the
        # commit's one flush instead of an autoflush before each statement.
        await db.execute(insert(_ANSWERS).values(  # the unique (session, position) constraint fires here
            session_id=row.id, question_index=position, question_id=question.id, bite_id=question.bite_id,
            user_id=row.user_id, guild_id=row.guild_id, choice=choice, correct=correct, answered_at=now,
            request_id=request_id,
        ))
        xp = await self.ledger.credit_xp(db, row.user_id, row.guild_id, XP_CORRECT_ANSWER if correct else 0,
                                  _answer_key(row.id, position))
        bonus = 0
        if finished:
            bonus = await self.ledger.credit_xp(db, row.user_id, row.guild_id, XP_FINISH_BONUS, _finish_key(row.id))
        user = await self.ledger.user_row(db, row.user_id)
        next_review = await self.ledger.review_item(db, row.user_id, QUESTION, question.id, rating_for_answer(correct))
        self.ledger.touch_streak(user)
        row.position = position + 1
        row.correct_count += int(correct)
        row.updated_at = now
        if finished:
            row.status, row.finished_at = FINISHED, now
        return AnswerResult(
            "ok", position, total, correct=correct, choice=choice, correct_choice=shown_index(order, question.answer),
            explanation=question.explanation, bite_id=question.bite_id, bite_title=bite_title(self.catalog, question.bite_id),
            xp_gained=xp, bonus_xp=bonus, finished=row.position == total, next_review=next_review, state=shown,
        )

    async def _stored_answer(self, db, row: QuizSession, position: int, request_id: str) -> AnswerResult:
        """The answer already stored at `position`. If this very request stored it
        (its commit succeeded but the connection died before we heard), it counts as ours."""
        stored = (
            await db.execute(
                select(QuizAnswer).where(QuizAnswer.session_id == row.id, QuizAnswer.question_index == position)
            )
        ).scalar_one()
        total = len(row.question_ids)
        question = self.catalog.questions.get(stored.question_id)
        order = row.option_orders[position]
        mine = stored.request_id == request_id
        xp = await self.ledger.xp_for_keys(db, [_answer_key(row.id, position)]) if mine else 0
        bonus = await self.ledger.xp_for_keys(db, [_finish_key(row.id)]) if mine and position == total - 1 else 0
        return AnswerResult(
            "ok" if mine else "already_answered", position, total, correct=stored.correct, choice=stored.choice,
            correct_choice=shown_index(order, question.answer) if question else None,
            explanation=question.explanation if question else None, bite_id=stored.bite_id,
            bite_title=bite_title(self.catalog, stored.bite_id), xp_gained=xp, bonus_xp=bonus,
            finished=row.position >= total, state=self.quiz_state(row),
        )

    # -- ending ----------------------------------------------------------
    async def finish(self, session_id: int) -> Summary:
        """End the session (early, if questions remain: no finish bonus then) and
        summarise it. Safe to call again: the summary is rebuilt, nothing re-credited."""

        async def work(db):
            row = await db.get(QuizSession, session_id, with_for_update=True, populate_existing=True)
            if row is None:
                raise NotFound(f"no quiz session {session_id}")
            if row.status == ACTIVE:
                row.status, row.finished_at, row.updated_at = FINISHED, self.now(), self.now()
            answers = (await db.execute(select(QuizAnswer).where(QuizAnswer.session_id == row.id))).scalars().all()
            keys = [_answer_key(row.id, a.question_index) for a in answers]
            xp_answers = await self.ledger.xp_for_keys(db, keys)
            bonus = await self.ledger.xp_for_keys(db, [_finish_key(row.id)])
            wrong = Counter(a.bite_id for a in answers if not a.correct)
            weakest = tuple(
                WeakBite(bite_id, bite_title(self.catalog, bite_id), n)
                for bite_id, n in sorted(wrong.items(), key=lambda kv: (-kv[1], kv[0]))
            )
            user = await self.ledger.user_row(db, row.user_id, lock=False)
            return Summary(
                session_id=row.id, status=row.status, score=sum(a.correct for a in answers), answered=len(answers),
                total=len(row.question_ids), xp_earned=xp_answers + bonus, bonus_xp=bonus,
                streak=self.ledger.shown_streak(user), weakest_bites=weakest, reviews_due=len(await self.ledger.due_items(db, row.user_id)),
            )

        return await self.store.run(work)

    async def abandon(self, user_id: int, session_id: int) -> None:
        """Abandon the user's session. Raises NotFound / NotOwner; a no-op if already over."""

        async def work(db):
            row = await db.get(QuizSession, session_id, with_for_update=True, populate_existing=True)
            if row is None:
                raise NotFound(f"no quiz session {session_id}")
            if row.user_id != user_id:
                raise NotOwner("that session belongs to someone else")
            if row.status == ACTIVE:
                row.status, row.updated_at = ABANDONED, self.now()

        await self.store.run(work)

    async def expire_stale_sessions(self) -> int:
        """Expire every active session idle longer than `session_expiry_minutes`."""

        async def work(db):
            result = await db.execute(
                update(QuizSession)
                .where(QuizSession.status == ACTIVE, QuizSession.updated_at <= self.now() - self.session_expiry)
                .values(status=EXPIRED)
            )
            return result.rowcount or 0

        return await self.store.run(work)
