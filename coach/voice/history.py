"""A member's delivery over time: the figures of their voice answers (the `deliveries` table),
newest first, with the first one to compare against. Numbers only, like the table."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from coach.store.models import Attempt, DeliveryRow

RECENT_SHOWN = 5


@dataclass(frozen=True)
class DeliveryPoint:
    created_at: datetime
    bite_id: str
    speaking_s: float
    wpm: float
    fillers_per_min: float
    long_pauses: int
    opens_with_core_point: bool | None


@dataclass(frozen=True)
class DeliveryHistory:
    answers: int  # voice answers ever graded
    recent: tuple[DeliveryPoint, ...]  # newest first
    first: DeliveryPoint | None  # the oldest, to show the change since

    @property
    def opened_with_core_point(self) -> tuple[int, int]:
        """(yes, judged) among the recent answers."""
        judged = [p.opens_with_core_point for p in self.recent if p.opens_with_core_point is not None]
        return sum(judged), len(judged)


def _point(delivery: DeliveryRow, bite_id: str) -> DeliveryPoint:
    return DeliveryPoint(delivery.created_at, bite_id, delivery.speaking_s, delivery.wpm, delivery.fillers_per_min,
                         delivery.long_pauses, delivery.opens_with_core_point)


async def delivery_history(store, user_id: int, recent: int = RECENT_SHOWN) -> DeliveryHistory:
    """The member's voice answers: how many, the last `recent`, and the first."""

    async def work(db):
        rows = select(DeliveryRow, Attempt.bite_id).join(Attempt, Attempt.id == DeliveryRow.attempt_id).where(
            DeliveryRow.user_id == user_id)
        answers = await db.scalar(select(func.count()).select_from(DeliveryRow).where(DeliveryRow.user_id == user_id))
        newest = (await db.execute(
            rows.order_by(DeliveryRow.created_at.desc(), DeliveryRow.attempt_id.desc()).limit(recent))).all()
        oldest = (await db.execute(
            rows.order_by(DeliveryRow.created_at, DeliveryRow.attempt_id).limit(1))).first()
        return DeliveryHistory(
            answers=int(answers or 0),
            recent=tuple(_point(row, bite) for row, bite in newest),
            first=_point(*oldest) if oldest else None,
        )

    return await store.read(work)
