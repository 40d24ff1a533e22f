"""Progress: graded explanations, what is due, stats, the leaderboard, reminders."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable, Literal

from sqlalchemy import case, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from coach.catalog import bite_title
from coach.errors import InvalidRequest
from coach.progress.ledger import Ledger
from coach.progress.review import BITE, QUESTION, rating_for_grade
from coach.progress.streaks import streak_at_risk
from coach.progress.xp import explanation_xp
from coach.results import AttemptRecord, AttemptSummary, BiteAccuracy, DueList, LeaderRow, Reminder, Stats
from coach.store import Store
from coach.store.models import Attempt, DeliveryRow, QuizAnswer, User, XpEvent
from coach.timeutil import echo, zone
from content import Catalog

PERIODS = {"week": timedelta(days=7), "month": timedelta(days=30), "all": None}
REMINDER_LOCAL_HOUR = 18  # reminders go out from 18:00 in the user's timezone
LAST_ATTEMPTS_SHOWN = 5


class ProgressService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime]):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now

    async def record_attempt(
        self, user_id: int, guild_id: int, bite_id: str, score: int, grader: str, latency_ms: int,
        answer_text: str | None, attempt_key: str | None = None, *, versions: dict | None = None,
        delivery: dict | None = None,
    ) -> AttemptRecord:
        """Store one graded explanation: the text only if the user keeps answers;
        XP for the grade; the (user, bite) FSRS card reviewed. With `attempt_key`,
        a retry of the same attempt stores and credits nothing new (`duplicate=True`).
        `versions`: scale_version, rubric_version and grader_version of the grade.
        `delivery`: a spoken answer's figures (`Delivery.figures()`), stored beside the attempt."""
        if bite_id not in self.catalog.bites:
            raise InvalidRequest(f"unknown bite {echo(bite_id)}")
        if not isinstance(score, int) or not 0 <= score <= 4:
            raise InvalidRequest("score must be 0-4")

        async def existing(db):
            if attempt_key is None:
                return None
            row = (await db.execute(select(Attempt).where(Attempt.attempt_key == attempt_key))).scalar_one_or_none()
            return self._attempt_record(row, xp=0, duplicate=True) if row else None

        async def work(db):
            user = await self.ledger.user_row(db, user_id)  # locks the user: one write per user at a time
            seen = await existing(db)
            if seen:
                return seen
            row = Attempt(
                user_id=user_id, guild_id=guild_id, bite_id=bite_id, score=score, grader=grader,
                latency_ms=int(latency_ms), answer_text=answer_text if user.keep_answers else None,
                attempt_key=attempt_key, created_at=self.now(), **(versions or {}),
            )
            db.add(row)
            await db.flush()
            if delivery is not None:
                db.add(DeliveryRow(attempt_id=row.id, user_id=user_id, created_at=row.created_at, **delivery))
            xp = await self.ledger.credit_xp(db, user_id, guild_id, explanation_xp(score), f"attempt:{row.id}")
            self.ledger.touch_streak(user)
            due = await self.ledger.review_item(db, user_id, BITE, bite_id, rating_for_grade(score))
            return self._attempt_record(row, xp=xp, duplicate=False, next_review=due)

        try:
            return await self.store.run(work)
        except IntegrityError:  # the same attempt_key raced in on another connection
            return await self.store.read(existing)

    @staticmethod
    def _attempt_record(row: Attempt, *, xp: int, duplicate: bool, next_review=None) -> AttemptRecord:
        return AttemptRecord(
            attempt_id=row.id, user_id=row.user_id, guild_id=row.guild_id, bite_id=row.bite_id, score=row.score,
            grader=row.grader, xp_gained=xp, text_kept=row.answer_text is not None, duplicate=duplicate,
            next_review=next_review, created_at=row.created_at,
        )

    async def due(self, user_id: int) -> DueList:
        items = await self.store.read(lambda db: self.ledger.due_items(db, user_id))
        return DueList(
            questions=tuple(i for i in items if i.kind == QUESTION), bites=tuple(i for i in items if i.kind == BITE)
        )

    async def stats(self, user_id: int, guild_id: int) -> Stats:
        async def work(db):
            user = await db.get(User, user_id)
            xp_total = await db.scalar(select(func.coalesce(func.sum(XpEvent.amount), 0)).where(XpEvent.user_id == user_id))
            xp_guild = await db.scalar(
                select(func.coalesce(func.sum(XpEvent.amount), 0))
                .where(XpEvent.user_id == user_id, XpEvent.guild_id == guild_id)
            )
            by_bite = (
                await db.execute(
                    select(QuizAnswer.bite_id, func.count(), func.sum(case((QuizAnswer.correct, 1), else_=0)))
                    .where(QuizAnswer.user_id == user_id)
                    .group_by(QuizAnswer.bite_id)
                )
            ).all()
            accuracy = tuple(
                sorted(
                    (BiteAccuracy(bite, bite_title(self.catalog, bite), int(n), int(right or 0)) for bite, n, right in by_bite),
                    key=lambda b: (b.accuracy, b.bite_id),
                )
            )
            attempts = (
                await db.execute(
                    select(Attempt).where(Attempt.user_id == user_id)
                    .order_by(Attempt.created_at.desc(), Attempt.id.desc()).limit(LAST_ATTEMPTS_SHOWN)
                )
            ).scalars().all()
            today = self.now().astimezone(zone(user.timezone)).date() if user else None
            return Stats(
                user_id=user_id, xp_total=int(xp_total or 0), xp_guild=int(xp_guild or 0),
                streak=self.ledger.shown_streak(user),
                streak_at_risk=bool(user) and streak_at_risk(self.ledger.streak_state(user), today),
                answered=sum(b.answered for b in accuracy), correct=sum(b.correct for b in accuracy),
                accuracy_by_bite=accuracy,
                last_attempts=tuple(
                    AttemptSummary(a.bite_id, bite_title(self.catalog, a.bite_id), a.score, a.grader, a.created_at) for a in attempts
                ),
                reviews_due=len(await self.ledger.due_items(db, user_id)),
            )

        return await self.store.read(work)

    async def leaderboard(
        self, guild_id: int, period: Literal["week", "month", "all"] = "week", limit: int = 10
    ) -> list[LeaderRow]:
        """XP earned in this guild over the last 7 days ("week"), 30 days ("month") or
        ever ("all"); users who opted out are left out. Ties rank by user id."""
        if period not in PERIODS:
            raise InvalidRequest("period must be week, month or all")
        window = PERIODS[period]
        since = self.now() - window if window is not None else None
        rows = await self.store.read(lambda db: self.ledger.leader_rows(db, guild_id, since, None, limit, strictly_after=True))
        return list(rows)

    async def reminders_due(self) -> list[Reminder]:
        """Opted-in users to DM now: from 18:00 their time, once per local day, when
        reviews are due or the streak ends tonight. Returned reminders are recorded as
        sent (at most once a day, even if the DM then fails)."""

        async def work(db):
            users = (await db.execute(select(User).where(User.reminders.is_(True)))).scalars().all()
            out = []
            for user in users:
                local_now = self.now().astimezone(zone(user.timezone))
                today = local_now.date()
                if local_now.hour < REMINDER_LOCAL_HOUR or user.last_reminder_on == today:
                    continue
                due = len(await self.ledger.due_items(db, user.user_id))
                at_risk = streak_at_risk(self.ledger.streak_state(user), today)
                if not due and not at_risk:
                    continue
                claimed = await db.execute(
                    update(User)
                    .where(User.user_id == user.user_id,
                           or_(User.last_reminder_on.is_(None), User.last_reminder_on != today))
                    .values(last_reminder_on=today)
                )
                if claimed.rowcount:
                    out.append(Reminder(user.user_id, today, due, self.ledger.shown_streak(user), at_risk))
            return out

        return await self.store.run(work)
