"""Progress over time, read from the store: a member's weeks, streak calendar and reviews
ahead; their mastery of every bite in a track; a server's week. The rules are pure
functions in `history.py`; this module only reads rows and buckets them by local date."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, time, timedelta, timezone
from typing import Callable

from sqlalchemy import and_, case, func, select

from coach.catalog import bite_title, require_track
from coach.daily.rules import schedule_for
from coach.history.rules import (
    DUE_DAYS_AHEAD, HISTORY_WEEKS, mastery, mastery_level, next_to_study, streak_calendar, week_start,
)
from coach.progress.ledger import Ledger
from coach.progress.review import BITE, QUESTION
from coach.quiz.rules import shown_index
from coach.results import (
    BiteMastery, DayAnswers, DueDay, GuildWeek, MasteryMap, MissedBite, ProgressHistory, WeekPoint,
)
from coach.store import Store
from coach.store.models import Attempt, DailyAnswer, DailyPickRow, DailySchedule, QuizAnswer, ReviewCard, User, XpEvent
from coach.timeutil import zone
from content import Catalog

MOST_MISSED_SHOWN = 5
LEADERS_SHOWN = 5
# The streak replay starts this long before the calendar (history.streak_calendar: a week is enough).
REPLAY_MARGIN = timedelta(days=14)


def local_midnight(day: date, tz) -> datetime:
    """The UTC instant a local day begins."""
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(timezone.utc)


class HistoryService:
    def __init__(self, store: Store, catalog: Catalog, ledger: Ledger, now: Callable[[], datetime]):
        self.store, self.catalog, self.ledger, self.now = store, catalog, ledger, now

    async def progress_history(self, user_id: int, weeks: int = HISTORY_WEEKS,
                               days_ahead: int = DUE_DAYS_AHEAD) -> ProgressHistory:
        """The member's last `weeks` weeks (Monday to Sunday in their timezone, as the streak
        counts them), the streak calendar over the same weeks, and reviews due from today
        (everything overdue counts as today) over the next `days_ahead` days."""
        weeks = max(1, weeks)
        now = self.now()

        async def work(db):
            user = await db.get(User, user_id)
            tz_name = user.timezone if user else "UTC"
            tz = zone(tz_name)
            today = now.astimezone(tz).date()
            first = week_start(today) - timedelta(weeks=weeks - 1)
            since = local_midnight(first, tz)
            replay_since = local_midnight(first, tz) - REPLAY_MARGIN

            def local(moment: datetime) -> date:
                return moment.astimezone(tz).date()

            answers = (await db.execute(
                select(QuizAnswer.answered_at, QuizAnswer.correct)
                .where(QuizAnswer.user_id == user_id, QuizAnswer.answered_at >= replay_since)
            )).all()
            attempts = (await db.execute(
                select(Attempt.created_at, Attempt.score)
                .where(Attempt.user_id == user_id, Attempt.created_at >= replay_since)
            )).all()
            daily = (await db.execute(
                select(DailyAnswer.answered_at).where(DailyAnswer.user_id == user_id, DailyAnswer.answered_at >= replay_since)
            )).scalars().all()
            xp = (await db.execute(
                select(XpEvent.created_at, XpEvent.amount).where(XpEvent.user_id == user_id, XpEvent.created_at >= since)
            )).all()
            horizon = local_midnight(today + timedelta(days=days_ahead), tz)
            cards = (await db.execute(
                select(ReviewCard.kind, ReviewCard.item_id, ReviewCard.due)
                .where(ReviewCard.user_id == user_id, ReviewCard.due < horizon)
            )).all()

            buckets = [dict(answered=0, correct=0, explained=0, score_sum=0, xp=0) for _ in range(weeks)]

            def bucket(moment: datetime):
                index = (week_start(local(moment)) - first).days // 7
                return buckets[index] if 0 <= index < weeks else None

            for at, correct in answers:
                if (b := bucket(at)) is not None:
                    b["answered"] += 1
                    b["correct"] += bool(correct)
            for at, score in attempts:
                if (b := bucket(at)) is not None:
                    b["explained"] += 1
                    b["score_sum"] += int(score)
            for at, amount in xp:
                if (b := bucket(at)) is not None:
                    b["xp"] += int(amount)

            activity = [local(at) for at, _ in answers] + [local(at) for at, _ in attempts] + [local(at) for at in daily]
            calendar = streak_calendar(activity, first, week_start(today) + timedelta(days=6), today)

            due = [0] * days_ahead
            for kind, item_id, when in cards:
                known = item_id in self.catalog.questions if kind == QUESTION else item_id in self.catalog.bites
                if not known:
                    continue
                offset = max(0, (local(when) - today).days)
                if offset < days_ahead:
                    due[offset] += 1

            return ProgressHistory(
                user_id=user_id, timezone=tz_name, today=today,
                weeks=tuple(WeekPoint(first + timedelta(weeks=i), **b) for i, b in enumerate(buckets)),
                calendar=calendar,
                due=tuple(DueDay(today + timedelta(days=i), n) for i, n in enumerate(due)),
                streak=self.ledger.shown_streak(user),
            )

        return await self.store.read(work)

    async def mastery_map(self, user_id: int, track: str) -> MasteryMap:
        """How well the member knows every bite of `track` (quiz accuracy, best explanation,
        FSRS stability, `history.mastery`) and the bite to study next."""
        found = require_track(self.catalog, track)
        bite_ids = [b.id for b in found.bites]
        found_ids = set(bite_ids)
        question_bite = {q.id: q.bite_id for q in found.questions}
        now = self.now()

        async def work(db):
            answered = {
                bite: (int(n), int(right or 0))
                for bite, n, right in await db.execute(
                    select(QuizAnswer.bite_id, func.count(), func.sum(case((QuizAnswer.correct, 1), else_=0)))
                    .where(QuizAnswer.user_id == user_id, QuizAnswer.bite_id.in_(bite_ids))
                    .group_by(QuizAnswer.bite_id)
                )
            }
            best = dict((await db.execute(
                select(Attempt.bite_id, func.max(Attempt.score))
                .where(Attempt.user_id == user_id, Attempt.bite_id.in_(bite_ids))
                .group_by(Attempt.bite_id)
            )).all())
            stabilities: dict[str, list[float]] = defaultdict(list)
            first_due: dict[str, datetime] = {}
            for kind, item_id, card, due in await db.execute(
                select(ReviewCard.kind, ReviewCard.item_id, ReviewCard.card, ReviewCard.due)
                .where(ReviewCard.user_id == user_id)
            ):
                bite = item_id if kind == BITE else question_bite.get(item_id)
                if bite is None or bite not in found_ids:
                    continue
                stability = (card or {}).get("stability")
                if stability:
                    stabilities[bite].append(float(stability))
                if bite not in first_due or due < first_due[bite]:
                    first_due[bite] = due
            return answered, best, stabilities, first_due

        answered, best, stabilities, first_due = await self.store.read(work)
        bites = []
        for bite in found.bites:
            n, right = answered.get(bite.id, (0, 0))
            score = best.get(bite.id)
            held = stabilities.get(bite.id)
            stability = sum(held) / len(held) if held else None
            value = mastery(n, right, score, stability)
            bites.append(BiteMastery(
                bite_id=bite.id, title=bite.title, group=bite.tags[0] if bite.tags else "other", answered=n,
                correct=right, best_score=int(score) if score is not None else None, stability=stability,
                due=first_due.get(bite.id), mastery=value, level=mastery_level(value),
            ))
        next_id, reason = next_to_study(bites, now)
        return MasteryMap(user_id, found.id, found.title, tuple(bites), next_id, reason, now)

    async def guild_week(self, guild_id: int, start: date | None = None, *, channel_id: int | None = None) -> GuildWeek:
        """The server's week that begins on `start` (default: the last whole week before
        today), in the daily schedule's timezone and first day of the week (UTC and Monday
        without a schedule). The days are one channel's daily questions (by default the main
        schedule's, so each track's post shows its own); the most missed bites, the answers
        and the leaders are the whole server's."""
        now = self.now()

        async def work(db):
            schedules = (await db.execute(select(DailySchedule).where(DailySchedule.guild_id == guild_id)
                                          .order_by(DailySchedule.channel_id))).scalars().all()
            schedule = schedule_for(schedules, channel_id)
            channel = channel_id if channel_id is not None else (schedule.channel_id if schedule else 0)
            tz_name = schedule.timezone if schedule else "UTC"
            first_weekday = (schedule.week_start or 0) if schedule else 0
            tz = zone(tz_name)
            begin = start or week_start(now.astimezone(tz).date(), first_weekday) - timedelta(days=7)
            end = begin + timedelta(days=6)
            since, until = local_midnight(begin, tz), local_midnight(end + timedelta(days=1), tz)

            picks = {
                row.local_date: row
                for row in (await db.execute(
                    select(DailyPickRow).where(DailyPickRow.guild_id == guild_id, DailyPickRow.channel_id == channel,
                                               DailyPickRow.local_date.between(begin, end))
                )).scalars()
            }
            counts: dict[date, dict[int, int]] = defaultdict(dict)
            for day, choice, n in await db.execute(
                select(DailyAnswer.local_date, DailyAnswer.choice, func.count())
                .where(DailyAnswer.guild_id == guild_id, DailyAnswer.channel_id == channel,
                       DailyAnswer.local_date.between(begin, end))
                .group_by(DailyAnswer.local_date, DailyAnswer.choice)
            ):
                counts[day][int(choice)] = int(n)

            missed: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # bite -> [answered, wrong]
            for bite, n, wrong in await db.execute(
                select(QuizAnswer.bite_id, func.count(), func.sum(case((QuizAnswer.correct, 0), else_=1)))
                .where(QuizAnswer.guild_id == guild_id, QuizAnswer.answered_at >= since, QuizAnswer.answered_at < until)
                .group_by(QuizAnswer.bite_id)
            ):
                missed[bite][0] += int(n)
                missed[bite][1] += int(wrong or 0)
            for bite, n, wrong in await db.execute(
                select(DailyPickRow.bite_id, func.count(), func.sum(case((DailyAnswer.correct, 0), else_=1)))
                .join(DailyPickRow, and_(DailyPickRow.guild_id == DailyAnswer.guild_id,
                                         DailyPickRow.channel_id == DailyAnswer.channel_id,
                                         DailyPickRow.local_date == DailyAnswer.local_date))
                .where(DailyAnswer.guild_id == guild_id, DailyAnswer.local_date.between(begin, end))
                .group_by(DailyPickRow.bite_id)
            ):
                missed[bite][0] += int(n)
                missed[bite][1] += int(wrong or 0)

            leaders = await self.ledger.leader_rows(db, guild_id, since, until, LEADERS_SHOWN)
            return tz_name, first_weekday, begin, end, picks, counts, missed, leaders

        tz_name, first_weekday, begin, end, picks, counts, missed, leaders = await self.store.read(work)
        days = []
        for offset in range(7):
            day = begin + timedelta(days=offset)
            row = picks.get(day)
            question = self.catalog.questions.get(row.question_id) if row else None
            if row is None or question is None:
                days.append(DayAnswers(day, False, "", "", (), -1))
                continue
            shown = counts.get(day, {})
            days.append(DayAnswers(
                day, True, row.bite_id, bite_title(self.catalog, row.bite_id),
                tuple(shown.get(i, 0) for i in range(len(row.option_order))),
                shown_index(row.option_order, question.answer),
            ))
        ranked = sorted(
            (MissedBite(bite, bite_title(self.catalog, bite), n, wrong) for bite, (n, wrong) in missed.items() if wrong > 0),
            key=lambda m: (-m.wrong, -m.wrong / m.answered, m.title),
        )
        return GuildWeek(
            guild_id=guild_id, timezone=tz_name, week_start=first_weekday, start=begin, end=end, days=tuple(days),
            most_missed=tuple(ranked[:MOST_MISSED_SHOWN]), leaders=leaders,
            answers=sum(n for n, _ in missed.values()),
        )
