"""The grading cool-down: at most `limit` gradings per user in any `window` (a sliding
window), kept in the database so every bot process and a restarted one count the same uses.

Each use occupies one of the user's `limit` slots (expiring state rows) for `window`;
spending a use is claiming a free slot, which the database makes atomic, so two
processes grading for one user at once cannot both take the last slot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import func, select

from coach.store import state
from coach.store.models import ExpiringStateRow
from coach.timeutil import utcnow

SLOT_KIND = "grading_slot"


@dataclass(frozen=True)
class CooldownUse:
    slot: str | None  # the slot spent; None when the cool-down refused
    retry_after_s: float = 0.0

    @property
    def spent(self) -> bool:
        return self.slot is not None


class GradingCooldown:
    def __init__(self, store, limit: int, window: timedelta, clock: Callable[[], datetime] = utcnow, *,
                 kind: str = SLOT_KIND):
        """`kind` keeps one limit's uses apart from another's (explanations, interviews)."""
        if limit < 1 or window <= timedelta(0):
            raise ValueError("the cool-down needs a limit of at least 1 and a positive window")
        self.store, self.limit, self.window, self.clock, self.kind = store, limit, window, clock, kind

    def _keys(self, user_id: int) -> list[str]:
        return [f"{int(user_id)}:{slot}" for slot in range(self.limit)]

    async def spend_use(self, user_id: int) -> CooldownUse:
        """Spend one of the user's gradings if one is free; otherwise spend nothing and say
        how long until the oldest use frees up. Call it only when a grading is about to run."""
        now = self.clock()

        async def work(db) -> CooldownUse:
            for key in self._keys(user_id):
                if await state.claim(db, self.kind, key, {}, self.window, owner=state.user_owner(user_id), now=now):
                    return CooldownUse(slot=key)
            soonest = await db.scalar(
                select(ExpiringStateRow.expires_at)
                .where(ExpiringStateRow.kind == self.kind, ExpiringStateRow.key.in_(self._keys(user_id)))
                .order_by(ExpiringStateRow.expires_at).limit(1)
            )
            wait = (soonest - now).total_seconds() if soonest else 0.0
            return CooldownUse(slot=None, retry_after_s=max(wait, 0.001))

        return await self.store.run(work)

    async def refund(self, use: CooldownUse) -> None:
        """Give a spent use back: the grading it was spent on did not run after all (an
        empty answer, a bite that no longer exists)."""
        if use.slot is not None:
            await self.store.delete_state(self.kind, use.slot)

    async def uses_left(self, user_id: int) -> int:
        """How many gradings the user could start now (a query: spends nothing)."""
        now = self.clock()

        async def work(db) -> int:
            busy = await db.scalar(
                select(func.count()).select_from(ExpiringStateRow).where(
                    ExpiringStateRow.kind == self.kind, ExpiringStateRow.key.in_(self._keys(user_id)),
                    ExpiringStateRow.expires_at > now,
                )
            )
            return self.limit - int(busy or 0)

        return await self.store.read(work)
