"""The per-guild daily post: schedule, which posts are due, today's pick
(recorded before sending), marking it sent, members' answers and the results."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Callable

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from coach.catalog import bite_title, question_view, require_track
from coach.daily.rules import (
    Candidate, choose_daily, daily_option_order, first_weekday_for_locale, format_time, main_schedule, parse_time,
    post_time_on, schedule_for, validate_schedule,
)
from coach.errors import InvalidRequest, NotFound
from coach.progress.ledger import Ledger
from coach.progress.review import QUESTION, rating_for_answer
from coach.progress.xp import XP_DAILY_CORRECT
from coach.quiz.rules import shown_index
from coach.results import AnswerResult, DailyPick, DailyResults, DuePost, Schedule
from coach.store import Store
from coach.store.models import DailyAnswer, DailyPickRow, DailySchedule
from coach.timeutil import zone
from content import Catalog


# Each schedule posts every day; a handful of channels covers one per track with room to
# spare, and more would be a server posting the same questions to itself.
MAX_SCHEDULES = 5


def _schedule(row: DailySchedule) -> Schedule:
    return Schedule(row.guild_id, row.channel_id, parse_time(row.local_time), row.timezone, row.track, row.enabled,
                    row.week_start or 0)


class DailyService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime]):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now

    # -- schedule --------------------------------------------------------
    async def set_schedule(
        self, guild_id: int, channel_id: int, local_time: time | str, timezone: str, track: str,
        week_start: int | None = None, locale: str | None = None,
    ) -> Schedule:
        """The daily post of one channel (a server may run one per channel, each its own
        track, up to `MAX_SCHEDULES`). `week_start` (0 = Monday ... 6 = Sunday) is the
        server's first day of the week, shared by its channels: when not given, the server
        keeps its own and a first schedule takes the one usual for the server's `locale`
        (Discord's preferred locale, e.g. "en-US": Sunday)."""
        try:
            at, tz = validate_schedule(local_time, timezone)
        except ValueError as error:
            raise InvalidRequest(str(error)) from None
        if not require_track(self.catalog, track).questions:
            raise InvalidRequest(f"track {track!r} has no questions to post")
        if week_start is not None and (not isinstance(week_start, int) or not 0 <= week_start <= 6):
            raise InvalidRequest("week_start must be 0 (Monday) to 6 (Sunday)")

        async def work(db):
            rows = await self._schedule_rows(db, guild_id, lock=True)
            row = next((r for r in rows if r.channel_id == channel_id), None)
            if row is None:
                if sum(r.enabled for r in rows) >= MAX_SCHEDULES:
                    raise InvalidRequest(f"this server already posts in {MAX_SCHEDULES} channels; "
                                         "turn one off first (`/daily off channel:`)")
                row = DailySchedule(guild_id=guild_id, channel_id=channel_id,
                                    week_start=rows[0].week_start if rows else first_weekday_for_locale(locale))
                db.add(row)
            if week_start is not None:
                for other in [*rows, row]:
                    other.week_start = week_start
            row.local_time, row.timezone, row.track = format_time(at), tz, track
            row.enabled, row.updated_at = True, self.now()
            await db.flush()
            return _schedule(row)

        return await self.store.run(work)

    @staticmethod
    async def _schedule_rows(db, guild_id: int, lock: bool = False) -> list[DailySchedule]:
        query = select(DailySchedule).where(DailySchedule.guild_id == guild_id).order_by(DailySchedule.channel_id)
        return list((await db.execute(query.with_for_update() if lock else query)).scalars())

    async def disable_schedule(self, guild_id: int, channel_id: int | None = None) -> int:
        """Stop the daily post in one channel, or in every channel of the server when
        `channel_id` is None; returns how many were on."""

        async def work(db):
            stopped = 0
            for row in await self._schedule_rows(db, guild_id, lock=True):
                if row.enabled and channel_id in (None, row.channel_id):
                    row.enabled, row.updated_at = False, self.now()
                    stopped += 1
            return stopped

        return await self.store.run(work)

    async def get_schedules(self, guild_id: int) -> list[Schedule]:
        """Every schedule of the server, on or off, by channel."""
        async def work(db):
            return [_schedule(row) for row in await self._schedule_rows(db, guild_id)]

        return await self.store.read(work)

    async def get_schedule(self, guild_id: int, channel_id: int | None = None) -> Schedule | None:
        """The channel's schedule; with no channel, the server's main one (see `main_schedule`)."""
        return schedule_for(await self.get_schedules(guild_id), channel_id)

    async def due_posts(self, now: datetime | None = None) -> list[DuePost]:
        """Enabled schedules whose post time for their current local date has passed
        and whose post for that date is not marked sent. A post missed on an earlier
        day (bot down past midnight) is skipped, not sent late."""
        now = now or self.now()

        async def work(db):
            schedules = (await db.execute(select(DailySchedule).where(DailySchedule.enabled.is_(True)))).scalars().all()
            due = []
            for row in schedules:
                schedule = _schedule(row)
                local_day = now.astimezone(zone(schedule.timezone)).date()
                post_at = post_time_on(schedule, local_day)
                if post_at > now:
                    continue
                sent = await db.scalar(
                    select(DailyPickRow.sent_at)
                    .where(DailyPickRow.guild_id == row.guild_id, DailyPickRow.channel_id == row.channel_id,
                           DailyPickRow.local_date == local_day)
                )
                if sent is None:
                    due.append(DuePost(schedule, local_day, post_at))
            return due

        return await self.store.read(work)

    # -- the pick --------------------------------------------------------
    def _pick(self, row: DailyPickRow) -> DailyPick:
        view = question_view(self.catalog, row.question_id, row.option_order, 0, 1)
        if view is None:
            raise NotFound(f"question {row.question_id!r} of the {row.local_date} post is no longer in the catalog")
        return DailyPick(
            pick_id=row.id, guild_id=row.guild_id, local_date=row.local_date, track=row.track, bite_id=row.bite_id,
            bite_title=bite_title(self.catalog, row.bite_id), question=view, sent=row.sent_at is not None,
            message_ids=tuple(row.message_ids or ()), channel_id=row.channel_id,
        )

    async def _channel(self, db, guild_id: int, channel_id: int | None) -> int:
        """The channel a call means: the one given, else the server's main schedule's (0 without one)."""
        if channel_id is not None:
            return channel_id
        main = main_schedule(await self._schedule_rows(db, guild_id))
        return main.channel_id if main else 0

    async def _pick_row(self, db, guild_id: int, local_date: date, channel_id: int | None) -> DailyPickRow | None:
        channel_id = await self._channel(db, guild_id, channel_id)
        query = select(DailyPickRow).where(DailyPickRow.guild_id == guild_id, DailyPickRow.channel_id == channel_id,
                                           DailyPickRow.local_date == local_date)
        return (await db.execute(query)).scalar_one_or_none()

    async def pick_daily(self, guild_id: int, local_date: date, track: str | None = None, *,
                         channel_id: int | None = None) -> DailyPick:
        """The day's bite and question for a channel's post (by default the server's main
        schedule's; channel 0 where the server has none): chosen once, stored, and returned
        unchanged on every later call. Call it before sending (the adapter derives its resend
        guard from `pick_id`). The other calls about a day's post take the channel the same way."""

        async def work(db):
            nonlocal channel_id
            channel_id = await self._channel(db, guild_id, channel_id)
            row = await self._pick_row(db, guild_id, local_date, channel_id)
            if row is not None:
                return self._pick(row)
            chosen_track = track or await self._schedule_track(db, guild_id, channel_id)
            questions = require_track(self.catalog, chosen_track).questions
            candidates = [Candidate(q.bite_id, q.id) for q in questions]
            history_rows = await db.execute(
                select(DailyPickRow.bite_id, DailyPickRow.question_id)
                .where(DailyPickRow.guild_id == guild_id, DailyPickRow.track == chosen_track)
            )
            history = [Candidate(b, q) for b, q in history_rows]
            try:
                choice = choose_daily(guild_id, local_date, candidates, history)
            except ValueError as error:
                raise InvalidRequest(str(error)) from None
            row = DailyPickRow(
                guild_id=guild_id, channel_id=channel_id, local_date=local_date, track=chosen_track, bite_id=choice.bite_id,
                question_id=choice.question_id, option_order=daily_option_order(
                    guild_id, local_date, choice.question_id, len(self.catalog.questions[choice.question_id].options)
                ),
                created_at=self.now(),
            )
            db.add(row)
            await db.flush()
            return self._pick(row)

        try:
            return await self.store.run(work)
        except IntegrityError:  # a concurrent caller stored the pick first: return theirs
            return await self.store.run(work)

    async def _schedule_track(self, db, guild_id: int, channel_id: int) -> str:
        row = await db.get(DailySchedule, (guild_id, channel_id))
        if row is None:
            raise NotFound(f"channel {channel_id} of guild {guild_id} has no daily schedule; pass a track")
        return row.track

    async def mark_daily_sent(self, guild_id: int, local_date: date, message_ids, *, channel_id: int | None = None) -> DailyPick:
        """Record that the post went out (first call wins; later calls change nothing)."""

        async def work(db):
            row = await self._pick_row(db, guild_id, local_date, channel_id)
            if row is None:
                raise NotFound(f"no daily pick for guild {guild_id} on {local_date} (channel {channel_id})")
            if row.sent_at is None:
                row.sent_at, row.message_ids = self.now(), [int(m) for m in message_ids]
            return self._pick(row)

        return await self.store.run(work)

    # -- answers ---------------------------------------------------------
    async def record_daily_answer(self, guild_id: int, local_date: date, user_id: int, choice: int, *,
                                  channel_id: int | None = None) -> AnswerResult:
        """A member's answer to the channel's daily question (shown order). Counted once per
        member; a second click returns outcome "already_answered" with their first choice
        (a retry of this same call, after a commit whose reply was lost, reports "ok")."""
        if not isinstance(choice, int) or choice < 0:
            raise InvalidRequest("choice must be an option index")
        called_at = self.now()

        async def work(db):
            channel = await self._channel(db, guild_id, channel_id)
            xp_key = f"daily:{guild_id}:{channel}:{local_date.isoformat()}:{user_id}"
            row = await self._pick_row(db, guild_id, local_date, channel)
            if row is None:
                return AnswerResult("not_found", 0, 1)
            question = self.catalog.questions.get(row.question_id)
            if question is None:
                return AnswerResult("not_found", 0, 1)
            user = await self.ledger.user_row(db, user_id)  # serialises this user's writes
            common = dict(
                correct_choice=shown_index(row.option_order, question.answer), explanation=question.explanation,
                bite_id=question.bite_id, bite_title=bite_title(self.catalog, question.bite_id), finished=True,
            )
            earlier = (
                await db.execute(
                    select(DailyAnswer).where(DailyAnswer.guild_id == guild_id, DailyAnswer.channel_id == channel,
                                              DailyAnswer.local_date == local_date, DailyAnswer.user_id == user_id)
                )
            ).scalar_one_or_none()
            if earlier is not None:
                # Stored after this call began: our own commit whose reply was lost, retried.
                mine = earlier.answered_at > called_at
                return AnswerResult(
                    "ok" if mine else "already_answered", 0, 1, correct=earlier.correct, choice=earlier.choice,
                    xp_gained=await self.ledger.xp_for_keys(db, [xp_key]) if mine else 0, **common,
                )
            if choice >= len(row.option_order):
                raise InvalidRequest(f"choice must be 0-{len(row.option_order) - 1}")
            correct = row.option_order[choice] == question.answer
            db.add(DailyAnswer(guild_id=guild_id, channel_id=channel, local_date=local_date, user_id=user_id,
                               choice=choice, correct=correct, answered_at=self.now()))
            await db.flush()
            xp = await self.ledger.credit_xp(db, user_id, guild_id, XP_DAILY_CORRECT if correct else 0, xp_key)
            self.ledger.touch_streak(user)
            due = await self.ledger.review_item(db, user_id, QUESTION, question.id, rating_for_answer(correct))
            return AnswerResult("ok", 0, 1, correct=correct, choice=choice, xp_gained=xp, next_review=due, **common)

        try:
            return await self.store.run(work)
        except IntegrityError:
            return await self.store.run(work)

    async def daily_results(self, guild_id: int, local_date: date, *, channel_id: int | None = None) -> DailyResults:
        """How many members chose each option of the channel's post ("58% chose B")."""

        async def work(db):
            row = await self._pick_row(db, guild_id, local_date, channel_id)
            if row is None:
                raise NotFound(f"no daily pick for guild {guild_id} on {local_date} (channel {channel_id})")
            counts = [0] * len(row.option_order)
            for choice, n in await db.execute(
                select(DailyAnswer.choice, func.count())
                .where(DailyAnswer.guild_id == guild_id, DailyAnswer.channel_id == row.channel_id,
                       DailyAnswer.local_date == local_date)
                .group_by(DailyAnswer.choice)
            ):
                counts[choice] = int(n)
            total = sum(counts)
            question = self.catalog.questions.get(row.question_id)
            return DailyResults(
                guild_id, local_date, total, tuple(counts),
                tuple(c / total if total else 0.0 for c in counts),
                shown_index(row.option_order, question.answer) if question else -1, row.channel_id,
            )

        return await self.store.read(work)
