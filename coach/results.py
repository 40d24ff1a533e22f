"""What the engine returns: plain frozen dataclasses, no ORM objects, no Discord."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Literal

AnswerOutcome = Literal["ok", "already_answered", "not_owner", "expired", "finished", "not_found", "out_of_order"]


@dataclass(frozen=True)
class QuestionView:
    """One question as the user sees it: options in the session's stored order."""

    question_id: str
    bite_id: str
    bite_title: str
    stem: str
    options: tuple[str, ...]
    position: int  # 0-based
    total: int


@dataclass(frozen=True)
class QuizState:
    session_id: int
    user_id: int
    guild_id: int
    track: str
    kind: Literal["quiz", "review"]
    status: Literal["active", "finished", "abandoned", "expired"]
    position: int  # how many questions are answered = index of the current one
    total: int
    correct: int
    question: QuestionView | None  # None once every question is answered
    created_at: datetime
    updated_at: datetime
    expires_at: datetime  # when an idle session lapses

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True)
class DueItem:
    kind: Literal["question", "bite"]
    item_id: str
    title: str  # the bite's title (for a question: the bite it comes from)
    due: datetime


@dataclass(frozen=True)
class StartResult:
    """Exactly one of `session` / `conflict` is set, except for a review with
    nothing due to quiz on (both None; `explain_again` may still list bites)."""

    session: QuizState | None = None
    conflict: QuizState | None = None  # the user's existing active session: resume or abandon it
    explain_again: tuple[DueItem, ...] = ()  # due bite cards, for "explain it again"

    @property
    def nothing_due(self) -> bool:
        return self.session is None and self.conflict is None


@dataclass(frozen=True)
class AnswerResult:
    outcome: AnswerOutcome
    position: int
    total: int
    correct: bool | None = None
    choice: int | None = None  # the user's choice, shown order
    correct_choice: int | None = None  # shown order
    explanation: str | None = None
    bite_id: str | None = None
    bite_title: str | None = None
    xp_gained: int = 0  # for this answer (0 when not counted)
    bonus_xp: int = 0  # the finish bonus, when this answer completed the session
    finished: bool = False  # no questions left
    next_review: datetime | None = None
    # The session as the click found it (its question is the one answered, when counted now):
    # what the reply shows, from the answer's own transaction.
    state: QuizState | None = None

    @property
    def counted(self) -> bool:
        return self.outcome == "ok"

    @property
    def already_answered(self) -> bool:
        return self.outcome == "already_answered"

    @property
    def not_owner(self) -> bool:
        return self.outcome == "not_owner"

    @property
    def expired(self) -> bool:
        return self.outcome == "expired"


@dataclass(frozen=True)
class WeakBite:
    bite_id: str
    title: str
    wrong: int


@dataclass(frozen=True)
class Summary:
    session_id: int
    status: str
    score: int  # correct answers
    answered: int
    total: int
    xp_earned: int  # answers + finish bonus
    bonus_xp: int
    streak: int
    weakest_bites: tuple[WeakBite, ...]
    reviews_due: int


@dataclass(frozen=True)
class AttemptRecord:
    attempt_id: int
    user_id: int
    guild_id: int
    bite_id: str
    score: int
    grader: str
    xp_gained: int
    text_kept: bool
    duplicate: bool  # the attempt_key was seen before: nothing new was stored or credited
    next_review: datetime | None
    created_at: datetime


@dataclass(frozen=True)
class DueList:
    questions: tuple[DueItem, ...]
    bites: tuple[DueItem, ...]

    @property
    def count(self) -> int:
        return len(self.questions) + len(self.bites)


@dataclass(frozen=True)
class BiteAccuracy:
    bite_id: str
    title: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class AttemptSummary:
    bite_id: str
    title: str
    score: int
    grader: str
    created_at: datetime


@dataclass(frozen=True)
class Stats:
    user_id: int
    xp_total: int  # everywhere
    xp_guild: int  # in the guild asked about
    streak: int
    streak_at_risk: bool
    answered: int
    correct: int
    accuracy_by_bite: tuple[BiteAccuracy, ...]
    last_attempts: tuple[AttemptSummary, ...]
    reviews_due: int


@dataclass(frozen=True)
class LeaderRow:
    rank: int
    user_id: int
    xp: int


@dataclass(frozen=True)
class UserSettings:
    user_id: int
    timezone: str = "UTC"
    keep_answers: bool = False
    leaderboard_opt_out: bool = False
    reminders: bool = False
    preferred_track: str | None = None  # what `/quiz` with no track uses first


@dataclass(frozen=True)
class Report:
    report_id: int
    user_id: int
    guild_id: int
    item_id: str
    note: str
    created_at: datetime


@dataclass(frozen=True)
class Reminder:
    user_id: int
    local_date: date
    reviews_due: int
    streak: int
    streak_at_risk: bool


@dataclass(frozen=True)
class Schedule:
    guild_id: int
    channel_id: int
    local_time: time
    timezone: str
    track: str
    enabled: bool
    week_start: int = 0  # the server's first day of the week: 0 = Monday ... 6 = Sunday


@dataclass(frozen=True)
class DuePost:
    schedule: Schedule
    local_date: date
    post_at: datetime


@dataclass(frozen=True)
class DailyPick:
    pick_id: int
    guild_id: int
    local_date: date
    track: str
    bite_id: str
    bite_title: str
    question: QuestionView  # options in the post's stored order
    sent: bool
    message_ids: tuple[int, ...] = field(default_factory=tuple)
    channel_id: int = 0  # the schedule's channel (0: picked where the server has no schedule)


@dataclass(frozen=True)
class DailyResults:
    guild_id: int
    local_date: date
    total: int
    counts: tuple[int, ...]  # per shown option
    shares: tuple[float, ...]  # counts / total (0 when nobody answered)
    correct_choice: int
    channel_id: int = 0


# ----- progress over time, mastery, the server's week (what the pictures are drawn from) -----

CalendarState = Literal["active", "freeze", "missed", "future"]
MasteryLevel = Literal["new", "weak", "learning", "solid", "mastered"]


@dataclass(frozen=True)
class WeekPoint:
    """One week of a member's activity (weeks start on Monday in the member's timezone,
    as the streak's freeze rule counts them)."""

    start: date
    answered: int  # quiz and review answers
    correct: int
    explained: int  # graded explanations
    score_sum: int  # their scores added up (0-4 each)
    xp: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.explained if self.explained else None


@dataclass(frozen=True)
class CalendarDay:
    day: date
    # active: something was answered; freeze: a missed day the streak rule forgave;
    # missed: nothing, and nothing forgiven; future: after today.
    state: CalendarState


@dataclass(frozen=True)
class DueDay:
    day: date  # the first entry is today and also counts everything overdue
    count: int


@dataclass(frozen=True)
class ProgressHistory:
    user_id: int
    timezone: str
    today: date
    weeks: tuple[WeekPoint, ...]  # oldest first; the last one is the current week
    calendar: tuple[CalendarDay, ...]  # whole weeks, Monday first, ending with the current week
    due: tuple[DueDay, ...]  # today and the days after it
    streak: int


@dataclass(frozen=True)
class BiteMastery:
    bite_id: str
    title: str
    group: str  # the bite's first tag ("other" when it has none)
    answered: int
    correct: int
    best_score: int | None  # the best graded explanation, 0-4
    stability: float | None  # mean FSRS stability of the bite's review cards, in days
    due: datetime | None  # when its earliest review card is due
    mastery: float | None  # 0-1 (coach.history.mastery); None: never practised
    level: MasteryLevel = "new"


@dataclass(frozen=True)
class MasteryMap:
    user_id: int
    track: str
    track_title: str
    bites: tuple[BiteMastery, ...]  # in the track's order
    next_bite_id: str | None  # what to study next (coach.history.next_to_study)
    next_reason: str  # "due", "weakest", "new" or "" when there is nothing
    as_of: datetime | None = None  # when it was read: a bite whose `due` is before this is due now


@dataclass(frozen=True)
class DayAnswers:
    """How the server answered one day's daily question."""

    day: date
    posted: bool  # False: no daily question that day
    bite_id: str
    bite_title: str
    counts: tuple[int, ...]  # per option, in the order the post showed them
    correct_choice: int  # shown order; -1 when nothing was posted

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class MissedBite:
    bite_id: str
    title: str
    answered: int
    wrong: int


@dataclass(frozen=True)
class GuildWeek:
    """A server's week: each day's daily question, the most-missed bites, the top of the
    leaderboard (members who opted out are left out)."""

    guild_id: int
    timezone: str
    week_start: int  # 0 = Monday ... 6 = Sunday
    start: date  # first day of the week
    end: date  # last day (inclusive)
    days: tuple[DayAnswers, ...]  # seven, in order
    most_missed: tuple[MissedBite, ...]
    leaders: tuple[LeaderRow, ...]
    answers: int  # quiz and daily answers given in the server that week
