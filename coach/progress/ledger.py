"""The records every activity updates, in the caller's transaction: the member's row (where
the streak lives), XP credited once per source, the streak, and FSRS review cards. The quiz,
daily, progress and history services share one `Ledger`.

Every method takes the open `AsyncSession` of the caller's transaction, so a whole user
action (answer + XP + streak + review card) commits or fails as one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from fsrs import Scheduler
from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from coach.catalog import bite_title
from coach.progress.review import BITE, QUESTION, review
from coach.progress.streaks import StreakState, current_streak, record_activity
from coach.results import DueItem, LeaderRow
from coach.store import Store
from coach.store.models import ReviewCard, User, XpEvent
from coach.timeutil import local_date
from content import Catalog


class Ledger:
    def __init__(self, store: Store, catalog: Catalog, now: Callable[[], datetime], scheduler: Scheduler):
        self.store = store
        self.catalog = catalog
        self.now = now
        self.scheduler = scheduler

    def _insert(self):
        if self.store.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        return insert

    async def user_row(self, db: AsyncSession, user_id: int, *, lock: bool = True) -> User:
        """The user's row, created with defaults on first contact, locked for update. One
        statement for a user who exists (every click after the first)."""
        query = select(User).where(User.user_id == user_id)
        if lock:
            query = query.with_for_update()
        query = query.execution_options(populate_existing=True)
        row = (await db.execute(query)).scalar_one_or_none()
        if row is not None:
            return row
        insert = self._insert()
        await db.execute(
            insert(User)
            .values(user_id=user_id, timezone="UTC", keep_answers=False, leaderboard_opt_out=False,
                    reminders=False, streak_days=0, created_at=self.now())
            .on_conflict_do_nothing(index_elements=[User.user_id])
        )
        return (await db.execute(query)).scalar_one()

    async def credit_xp(self, db: AsyncSession, user_id: int, guild_id: int, amount: int, source_key: str) -> int:
        """Credit XP once per `source_key`; returns what was credited now (0 if already)."""
        if amount <= 0:
            return 0
        insert = self._insert()
        credited = await db.execute(
            insert(XpEvent)
            .values(user_id=user_id, guild_id=guild_id, amount=amount, source_key=source_key, created_at=self.now())
            .on_conflict_do_nothing(index_elements=[XpEvent.source_key])
            .returning(XpEvent.id)
        )
        return amount if credited.scalar_one_or_none() is not None else 0

    async def xp_for_keys(self, db: AsyncSession, keys: list[str]) -> int:
        if not keys:
            return 0
        total = await db.scalar(select(func.coalesce(func.sum(XpEvent.amount), 0)).where(XpEvent.source_key.in_(keys)))
        return int(total or 0)

    @staticmethod
    def streak_state(user: User) -> StreakState:
        return StreakState(user.streak_days, user.streak_last_day, user.freeze_week)

    def touch_streak(self, user: User) -> int:
        """Count activity now toward the user's streak; returns the new streak."""
        today = local_date(self.now(), user.timezone)
        state = record_activity(self.streak_state(user), today)
        user.streak_days, user.streak_last_day, user.freeze_week = state.days, state.last_day, state.freeze_week
        return state.days

    def shown_streak(self, user: User | None) -> int:
        if user is None:
            return 0
        return current_streak(self.streak_state(user), local_date(self.now(), user.timezone))

    async def review_item(self, db: AsyncSession, user_id: int, kind: str, item_id: str, rating) -> datetime:
        """Apply one FSRS review to the (user, kind, item) card; returns when it is due next."""
        now = self.now()
        row = (
            await db.execute(
                select(ReviewCard)
                .where(ReviewCard.user_id == user_id, ReviewCard.kind == kind, ReviewCard.item_id == item_id)
                .with_for_update()
            )
        ).scalar_one_or_none()
        card = review(self.scheduler, row.card if row else None, rating, now)
        if row is None:
            row = ReviewCard(user_id=user_id, kind=kind, item_id=item_id, card_id=card.card_id, reviews=0)
            db.add(row)
        row.card = card.to_dict()
        row.due = card.due
        row.last_rating = int(rating)
        row.reviews = (row.reviews or 0) + 1
        row.updated_at = now
        await db.flush()
        return card.due

    async def due_items(self, db: AsyncSession, user_id: int) -> list[DueItem]:
        """Cards due now whose item is still in the catalog, most overdue first."""
        rows = await db.execute(
            select(ReviewCard.kind, ReviewCard.item_id, ReviewCard.due)
            .where(ReviewCard.user_id == user_id, ReviewCard.due <= self.now())
            .order_by(ReviewCard.due, ReviewCard.item_id)
        )
        items = []
        for kind, item_id, due in rows:
            if kind == QUESTION and item_id in self.catalog.questions:
                items.append(DueItem(QUESTION, item_id, bite_title(self.catalog, self.catalog.questions[item_id].bite_id), due))
            elif kind == BITE and item_id in self.catalog.bites:
                items.append(DueItem(BITE, item_id, bite_title(self.catalog, item_id), due))
        return items

    async def leader_rows(self, db: AsyncSession, guild_id: int, since: datetime | None, until: datetime | None,
                          limit: int = 10, *, strictly_after: bool = False) -> tuple[LeaderRow, ...]:
        """XP earned in the guild from `since` (after it, with `strictly_after`) until before
        `until` (either may be open), best first; users who opted out are left out; ties rank
        by user id."""
        xp = func.sum(XpEvent.amount).label("xp")
        query = (
            select(XpEvent.user_id, xp)
            .outerjoin(User, User.user_id == XpEvent.user_id)
            .where(XpEvent.guild_id == guild_id, or_(User.leaderboard_opt_out.is_(None), User.leaderboard_opt_out.is_(False)))
            .group_by(XpEvent.user_id)
            .order_by(xp.desc(), XpEvent.user_id)
            .limit(max(1, min(limit, 100)))
        )
        if since is not None:
            query = query.where(XpEvent.created_at > since if strictly_after else XpEvent.created_at >= since)
        if until is not None:
            query = query.where(XpEvent.created_at < until)
        rows = (await db.execute(query)).all()
        return tuple(LeaderRow(rank, user_id, int(total)) for rank, (user_id, total) in enumerate(rows, start=1))
