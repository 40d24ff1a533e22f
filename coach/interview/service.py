"""Mock interviews in the database: start one, record a turn exactly once, end it, and let it
lapse. One row per interview (`interviews`), one open per member (a partial unique index);
every change is a conditional update on the turn number, so a second press, a retry after a
dropped connection or another process answering the same turn stores nothing twice.

Grading is not done here (coach/interview/flow.py grades, outside any transaction)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from coach.catalog import require_track
from coach.errors import InvalidRequest, NotFound, NotOwner
from coach.interview.rules import MAX_QUESTIONS, Turn, follow_up_xp, question_card, signal
from coach.progress.ledger import Ledger
from coach.store import Store
from coach.store.models import InterviewRow, User
from content import Catalog

OPEN = "open"
TURN_IDLE = timedelta(minutes=15)  # a turn left unanswered this long ends the interview
INTERVIEW_MAX = timedelta(minutes=45)  # and no interview runs longer than this


@dataclass(frozen=True)
class InterviewState:
    interview_id: int
    user_id: int
    guild_id: int
    track: str
    status: str  # open | finished | ended | expired
    bite_ids: tuple[str, ...]
    turns: tuple[Turn, ...]
    asking: tuple[int, int | None] | None  # (question, point or None for the question itself)
    turn: int  # the number of the turn being asked
    signal: str | None
    xp: int
    started_at: datetime
    updated_at: datetime

    @property
    def open(self) -> bool:
        return self.status == OPEN

    def expires_at(self) -> datetime:
        return min(self.updated_at + TURN_IDLE, self.started_at + INTERVIEW_MAX)


class AlreadyOpen(InvalidRequest):
    """The member has an interview open; `state` is it."""

    def __init__(self, state: InterviewState):
        super().__init__("an interview is already open")
        self.state = state


def _state(row: InterviewRow) -> InterviewState:
    asking = (row.asking["question"], row.asking.get("point")) if row.asking else None
    return InterviewState(
        interview_id=row.id, user_id=row.user_id, guild_id=row.guild_id, track=row.track, status=row.status,
        bite_ids=tuple(row.bite_ids), turns=tuple(Turn.from_json(t) for t in row.turns or ()), asking=asking,
        turn=row.turn, signal=row.signal, xp=row.xp or 0, started_at=row.started_at, updated_at=row.updated_at,
    )


async def _owned_row(db, interview_id: int, user_id: int) -> InterviewRow:
    """The interview's row, locked for the caller's transaction; NotFound, or NotOwner when it
    is another member's."""
    row = await db.get(InterviewRow, interview_id, with_for_update=True, populate_existing=True)
    if row is None:
        raise NotFound(f"no interview {interview_id}")
    if row.user_id != user_id:
        raise NotOwner("not your interview")
    return row


class InterviewService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime]):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now

    async def start(self, user_id: int, guild_id: int, track: str, bite_ids: list[str]) -> InterviewState:
        """A new interview asking its first bite's question. Raises AlreadyOpen with the open one."""
        require_track(self.catalog, track)
        if not 1 <= len(bite_ids) <= MAX_QUESTIONS or any(b not in self.catalog.bites for b in bite_ids):
            raise InvalidRequest(f"an interview asks 1-{MAX_QUESTIONS} known bites")
        await self.lapse(user_id)
        now = self.now()

        async def work(db):
            await self.ledger.user_row(db, user_id)  # one write per user at a time
            row = InterviewRow(user_id=user_id, guild_id=guild_id, track=track, status=OPEN, bite_ids=list(bite_ids),
                               turns=[], asking={"question": 0, "point": None}, turn=0, xp=0,
                               started_at=now, updated_at=now)
            db.add(row)
            await db.flush()
            return _state(row)

        try:
            return await self.store.run(work)
        except IntegrityError:  # one is open (another process opened it, or it was there)
            existing = await self.open_for(user_id)
            if existing is None:
                raise
            raise AlreadyOpen(existing) from None

    async def open_for(self, user_id: int) -> InterviewState | None:
        row = await self.store.read(lambda db: db.scalar(
            select(InterviewRow).where(InterviewRow.user_id == user_id, InterviewRow.status == OPEN)))
        return _state(row) if row is not None else None

    async def get(self, interview_id: int, user_id: int) -> InterviewState:
        row = await self.store.read(lambda db: db.get(InterviewRow, interview_id))
        if row is None:
            raise NotFound(f"no interview {interview_id}")
        if row.user_id != user_id:
            raise NotOwner("not your interview")
        return _state(row)

    async def lapse(self, user_id: int) -> InterviewState | None:
        """End the member's open interview if it ran out of time; returns it when this call
        ended it (its scorecard is still to be shown: by whoever ended it, once), else None."""
        open_one = await self.open_for(user_id)
        if open_one is None or self.now() < open_one.expires_at():
            return None
        state, closed = await self._close(open_one.interview_id, user_id, open_one.turn, "expired")
        return state if closed else None

    async def lapse_for_reminders(self) -> list[InterviewState]:
        """End every open interview that ran out of time whose member allowed reminders, and
        return those this call ended (their scorecards go by DM; a member without reminders
        sees theirs on the next command, `lapse`)."""
        rows = await self.store.read(lambda db: db.execute(
            select(InterviewRow).join(User, User.user_id == InterviewRow.user_id)
            .where(InterviewRow.status == OPEN, User.reminders.is_(True))))
        now, ended = self.now(), []
        for state in (_state(row) for row in rows.scalars()):
            if now >= state.expires_at():
                closed_state, closed = await self._close(state.interview_id, state.user_id, state.turn, "expired")
                if closed:
                    ended.append(closed_state)
        return ended

    def signal_of(self, bite_ids, turns) -> str | None:
        """The interview's signal from its turns (coach.interview.rules.signal)."""
        bites = [self.catalog.bites[b] for b in bite_ids if b in self.catalog.bites]
        return signal([question_card(bite, list(turns), q) for q, bite in enumerate(bites)])

    async def record(self, interview_id: int, user_id: int, turn_no: int, turn: Turn,
                     asking: tuple[int, int | None] | None) -> tuple[InterviewState, bool]:
        """Store `turn` as turn `turn_no` and move on to `asking` (None: the interview is over). Returns the state and whether this call stored it (False: the turn was
        answered already, or the interview is no longer open, and nothing changed)."""
        now = self.now()

        async def work(db):
            row = await _owned_row(db, interview_id, user_id)
            if row.status != OPEN or row.turn != turn_no:
                return _state(row), False
            xp = 0
            if turn.point is not None and not turn.passed:
                xp = follow_up_xp(list(turn.statuses), row.xp or 0)
                xp = await self.ledger.credit_xp(db, user_id, row.guild_id, xp, f"interview:{row.id}:{turn_no}")
            values = {"turns": [*(row.turns or []), turn.to_json()], "turn": turn_no + 1, "updated_at": now,
                      "xp": (row.xp or 0) + xp,
                      "asking": {"question": asking[0], "point": asking[1]} if asking else None}
            if asking is None:
                values |= {"status": "finished", "finished_at": now,
                           "signal": self.signal_of(row.bite_ids, [Turn.from_json(t) for t in values["turns"]])}
            changed = await db.execute(
                update(InterviewRow).where(InterviewRow.id == interview_id, InterviewRow.turn == turn_no,
                                           InterviewRow.status == OPEN).values(**values))
            if changed.rowcount != 1:
                return _state(row), False
            if xp or turn.point is None:
                self.ledger.touch_streak(await self.ledger.user_row(db, user_id))
            return _state(await db.get(InterviewRow, interview_id, populate_existing=True)), True

        return await self.store.run(work)

    async def close(self, interview_id: int, user_id: int, turn_no: int, status: str) -> InterviewState:
        """End the interview (`ended` by the member, `expired`) at turn `turn_no`; an interview
        already over is returned as it is."""
        return (await self._close(interview_id, user_id, turn_no, status))[0]

    async def _close(self, interview_id: int, user_id: int, turn_no: int, status: str) -> tuple[InterviewState, bool]:
        """`close`, and whether this call ended it (another process may have a moment before)."""
        now = self.now()

        async def work(db):
            row = await _owned_row(db, interview_id, user_id)
            changed = await db.execute(
                update(InterviewRow).where(InterviewRow.id == interview_id, InterviewRow.status == OPEN,
                                           InterviewRow.turn == turn_no)
                .values(status=status, finished_at=now, asking=None,
                        signal=self.signal_of(row.bite_ids, [Turn.from_json(t) for t in row.turns or ()])))
            if changed.rowcount == 1:
                row = await db.get(InterviewRow, interview_id, populate_existing=True)
            return _state(row), changed.rowcount == 1

        return await self.store.run(work)

    async def history(self, user_id: int) -> list[tuple[datetime, str | None]]:
        """(finished at, signal) of the member's finished interviews, oldest first."""
        rows = await self.store.read(lambda db: db.execute(
            select(InterviewRow.finished_at, InterviewRow.signal)
            .where(InterviewRow.user_id == user_id, InterviewRow.status != OPEN)
            .order_by(InterviewRow.started_at)))
        return [(at, signal) for at, signal in rows]

    async def count(self, user_id: int) -> int:
        return int(await self.store.read(lambda db: db.scalar(
            select(func.count()).select_from(InterviewRow).where(InterviewRow.user_id == user_id))) or 0)
