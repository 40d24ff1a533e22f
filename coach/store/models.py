"""The tables. Times are aware UTC (`UTCDateTime`); Discord ids are 64-bit.

Idempotency lives in constraints, not in application checks: one answer per
(session, position), one daily pick per (guild, date), one daily answer per
(guild, date, user), one XP credit per `source_key`, one active session per
(user, guild) through a partial unique index.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    JSON, BigInteger, Boolean, Date, Float, ForeignKey, Index, Integer, MetaData, String, Text, UniqueConstraint, text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from coach.store.types import BigId, UTCDateTime
from coach.grading.models import SCALE_VERSION

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ITEM_ID = String(100)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    __tablename__ = "users"
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    keep_answers: Mapped[bool] = mapped_column(Boolean, default=False)
    leaderboard_opt_out: Mapped[bool] = mapped_column(Boolean, default=False)
    reminders: Mapped[bool] = mapped_column(Boolean, default=False)
    # `/quiz` with no track uses it; None: the server's daily track, else a mix of every track.
    preferred_track: Mapped[str | None] = mapped_column(String(64))
    streak_days: Mapped[int] = mapped_column(Integer, default=0)
    streak_last_day: Mapped[date | None] = mapped_column(Date)
    # ISO week ("2026-W48") whose one allowed missed day was already forgiven.
    freeze_week: Mapped[str | None] = mapped_column(String(10))
    last_reminder_on: Mapped[date | None] = mapped_column(Date)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


ACTIVE = "active"


class QuizSession(Base):
    __tablename__ = "quiz_sessions"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    track: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))  # quiz | review
    status: Mapped[str] = mapped_column(String(16))  # active | finished | abandoned | expired
    question_ids: Mapped[list] = mapped_column(JSON)
    option_orders: Mapped[list] = mapped_column(JSON)  # per question: shown index -> authored index
    position: Mapped[int] = mapped_column(Integer, default=0)  # index of the next unanswered question
    correct_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index(
            "uq_quiz_sessions_one_active", "user_id", "guild_id", unique=True,
            sqlite_where=text("status = 'active'"), postgresql_where=text("status = 'active'"),
        ),
        Index("ix_quiz_sessions_status_updated_at", "status", "updated_at"),
    )


class QuizAnswer(Base):
    __tablename__ = "quiz_answers"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("quiz_sessions.id", ondelete="CASCADE"))
    question_index: Mapped[int] = mapped_column(Integer)
    question_id: Mapped[str] = mapped_column(ITEM_ID)
    bite_id: Mapped[str] = mapped_column(ITEM_ID)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    choice: Mapped[int] = mapped_column(Integer)  # in the shown order
    correct: Mapped[bool] = mapped_column(Boolean)
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Lets a retried request recognise its own earlier, committed write.
    request_id: Mapped[str | None] = mapped_column(String(32))

    __table_args__ = (UniqueConstraint("session_id", "question_index"),)


class ReviewCard(Base):
    __tablename__ = "cards"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(16))  # question | bite
    item_id: Mapped[str] = mapped_column(ITEM_ID)
    card_id: Mapped[int] = mapped_column(BigInteger)  # FSRS card id: epoch milliseconds
    card: Mapped[dict] = mapped_column(JSON)  # fsrs.Card.to_dict()
    due: Mapped[datetime] = mapped_column(UTCDateTime)
    last_rating: Mapped[int | None] = mapped_column(Integer)
    reviews: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (
        UniqueConstraint("user_id", "kind", "item_id"),
        Index("ix_cards_user_id_due", "user_id", "due"),
        Index("ix_cards_due", "due"),
    )


class Attempt(Base):
    __tablename__ = "attempts"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    bite_id: Mapped[str] = mapped_column(ITEM_ID)
    score: Mapped[int] = mapped_column(Integer)
    grader: Mapped[str] = mapped_column(String(32))
    latency_ms: Mapped[int] = mapped_column(Integer)
    answer_text: Mapped[str | None] = mapped_column(Text)  # only when the user allowed it
    attempt_key: Mapped[str | None] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Which scale scored it (1: the old coverage scale; old rows keep their score), and
    # which rubric and grader (fit or model + prompt) produced it.
    scale_version: Mapped[int] = mapped_column(Integer, default=SCALE_VERSION, server_default="1")
    rubric_version: Mapped[str | None] = mapped_column(String(32))
    grader_version: Mapped[str | None] = mapped_column(String(64))


class DeliveryRow(Base):
    """How a spoken answer was said (#18): figures only, one row per voice attempt. The audio is
    never stored and the transcript lives in `attempts.answer_text` like a typed answer (only when
    the user keeps answers). A typed attempt has no row here."""

    __tablename__ = "deliveries"
    attempt_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("attempts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    duration_s: Mapped[float] = mapped_column(Float)  # the recording
    speaking_s: Mapped[float] = mapped_column(Float)  # first word to last
    words: Mapped[int] = mapped_column(Integer)
    wpm: Mapped[float] = mapped_column(Float)
    fillers: Mapped[int] = mapped_column(Integer)
    fillers_per_min: Mapped[float] = mapped_column(Float)
    long_pauses: Mapped[int] = mapped_column(Integer)
    longest_pause_s: Mapped[float] = mapped_column(Float)
    opens_with_core_point: Mapped[bool | None] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class XpEvent(Base):
    __tablename__ = "xp_events"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    amount: Mapped[int] = mapped_column(Integer)
    source_key: Mapped[str] = mapped_column(String(200), unique=True)  # what earned it; credited once
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (Index("ix_xp_events_guild_id_created_at", "guild_id", "created_at"),)


class DailySchedule(Base):
    """One per (server, channel): a server may post a different track in each channel."""

    __tablename__ = "daily_schedules"
    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    channel_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    local_time: Mapped[str] = mapped_column(String(5))  # HH:MM
    timezone: Mapped[str] = mapped_column(String(64))
    track: Mapped[str] = mapped_column(String(64))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The server's first day of the week (0 = Monday ... 6 = Sunday): the weekly picture
    # goes out with that day's post.
    week_start: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class DailyPickRow(Base):
    __tablename__ = "daily_picks"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    # The schedule's channel; 0 for a pick made where the server has no schedule.
    channel_id: Mapped[int] = mapped_column(BigInteger, server_default="0")
    local_date: Mapped[date] = mapped_column(Date)
    track: Mapped[str] = mapped_column(String(64))
    bite_id: Mapped[str] = mapped_column(ITEM_ID)
    question_id: Mapped[str] = mapped_column(ITEM_ID)
    option_order: Mapped[list] = mapped_column(JSON)
    message_ids: Mapped[list | None] = mapped_column(JSON)
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("guild_id", "channel_id", "local_date"),)


class DailyAnswer(Base):
    __tablename__ = "daily_answers"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger, server_default="0")
    local_date: Mapped[date] = mapped_column(Date)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    choice: Mapped[int] = mapped_column(Integer)  # in the shown order
    correct: Mapped[bool] = mapped_column(Boolean)
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime)

    __table_args__ = (UniqueConstraint("guild_id", "channel_id", "local_date", "user_id"),)


class ShardLease(Base):
    """Which process holds a Discord shard (coach/fleet/leases.py). A process connects a shard
    only while it holds the lease and renews it well before `expires_at`; a lease past
    `expires_at` is free for any process to claim (the standby takes over a dead one's).
    `owner` is the process's configured name, `run_id` this run of it (a restart gets a new
    one); `heartbeat` is the last renewal."""

    __tablename__ = "shard_leases"
    shard_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    shard_count: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str] = mapped_column(String(100))
    run_id: Mapped[str] = mapped_column(String(32))
    acquired_at: Mapped[datetime] = mapped_column(UTCDateTime)
    heartbeat: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ReportRow(Base):
    __tablename__ = "reports"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, index=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    item_id: Mapped[str] = mapped_column(ITEM_ID)
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ExpiringStateRow(Base):
    """Short-lived state that must outlive a process and be seen by every process:
    cool-downs, one-shot confirmations, answer drafts, once-a-day notices, claims.
    A row past `expires_at` counts as absent; `Store.purge_expired_state` removes it.
    `owner` says whose row it is: `user:<id>` for a user's (so `/forget` erases it),
    or the id of the process holding a claim."""

    __tablename__ = "expiring_state"
    kind: Mapped[str] = mapped_column(String(40), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[dict] = mapped_column(JSON)
    owner: Mapped[str | None] = mapped_column(String(100), index=True)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class JudgeQualificationRow(Base):
    """A served model's qualification (coach/grading/qualifier.py), one row per (served model,
    prompt, rubric): a restart or a second process reads it instead of running it again, and a
    changed model, prompt or catalog has no row yet, so it qualifies afresh."""

    __tablename__ = "judge_qualifications"
    model_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    prompt_hash: Mapped[str] = mapped_column(String(32), primary_key=True)
    rubric_version: Mapped[str] = mapped_column(String(32), primary_key=True)
    state: Mapped[str] = mapped_column(String(16))  # qualified | disqualified
    result: Mapped[dict] = mapped_column(JSON)  # figures of both judges and the reasons
    measured_at: Mapped[datetime] = mapped_column(UTCDateTime)


class InterviewRow(Base):
    """A mock interview (/interview, coach/interview): its plan, every turn so far and what is
    being asked now, in one row so any process (or this one after a restart) continues it.
    `turn` counts the questions asked; an answer names the turn it answers, so a second press
    or a retry stores nothing twice (a conditional update on `turn`)."""

    __tablename__ = "interviews"
    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    track: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))  # open | finished | ended | expired
    bite_ids: Mapped[list] = mapped_column(JSON)
    turns: Mapped[list] = mapped_column(JSON)  # every answered turn (coach.interview.rules.Turn)
    asking: Mapped[dict | None] = mapped_column(JSON)  # {"question": i, "point": k | None}
    turn: Mapped[int] = mapped_column(Integer, default=0)
    signal: Mapped[str | None] = mapped_column(String(16))
    xp: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)  # when the current turn was asked
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index("uq_interviews_one_open", "user_id", unique=True,
              sqlite_where=text("status = 'open'"), postgresql_where=text("status = 'open'")),
        Index("ix_interviews_user_id_started_at", "user_id", "started_at"),
    )


# Every table that holds something about a user, with the column naming them; `forget` walks it.
USER_OWNED = (
    (QuizAnswer, QuizAnswer.user_id),
    (QuizSession, QuizSession.user_id),
    (InterviewRow, InterviewRow.user_id),
    (ReviewCard, ReviewCard.user_id),
    (DeliveryRow, DeliveryRow.user_id),  # before attempts: it references them
    (Attempt, Attempt.user_id),
    (XpEvent, XpEvent.user_id),
    (DailyAnswer, DailyAnswer.user_id),
    (ReportRow, ReportRow.user_id),
    (User, User.user_id),
)
