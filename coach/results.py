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

    @property
    def nonce(self) -> str:
        """A Discord message nonce (<= 25 chars), the same on every retry of this post.
        Append a one-character suffix per message when the post is several messages."""
        return f"daily-{self.pick_id}"


@dataclass(frozen=True)
class DailyResults:
    guild_id: int
    local_date: date
    total: int
    counts: tuple[int, ...]  # per shown option
    shares: tuple[float, ...]  # counts / total (0 when nobody answered)
    correct_choice: int
