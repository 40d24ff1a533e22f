"""`Coach`: the one object the adapters (Discord, console, CLI) talk to, composed of one
service per capability, each holding only what it needs:

    coach.quiz      quiz and review sessions            (coach/quiz/service.py)
    coach.progress  graded explanations, due reviews, stats, leaderboard, reminders
                                                        (coach/progress/service.py)
    coach.history   progress over time, mastery, a server's week (coach/history/service.py)
    coach.daily     the per-server daily post           (coach/daily/service.py)
    coach.account   settings, /forget, reports          (coach/account/service.py)
    coach.interviews mock interviews' records            (coach/interview/service.py; the
                    turns are run by coach/interview/flow.py, which grades)

They share one store, the catalog, one checked clock and one `Ledger` (the member's row,
XP, streak and review cards, written in the caller's transaction).

Errors: calls raise `coach.errors.InvalidRequest`, `NotFound` or `NotOwner`, except the
button-click paths (`quiz.answer`, `daily.record_daily_answer`), whose everyday outcomes
come back in `AnswerResult.outcome`.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Callable

from coach.account.service import AccountService
from coach.config import Settings
from coach.daily.service import DailyService
from coach.history.service import HistoryService
from coach.interview.service import InterviewService
from coach.progress.ledger import Ledger
from coach.progress.review import make_scheduler
from coach.progress.service import ProgressService
from coach.quiz.service import QuizService
from coach.store import Store
from coach.timeutil import aware_clock, utcnow
from content import Catalog


class Coach:
    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        settings: Settings,
        clock: Callable[[], datetime] = utcnow,
        rng_seed: int | None = None,
        enable_fuzzing: bool = True,
    ):
        self.store = store
        self.catalog = catalog
        self.settings = settings
        self.now = aware_clock(clock)
        ledger = Ledger(store, catalog, self.now, make_scheduler(enable_fuzzing=enable_fuzzing))
        self.quiz = QuizService(store, catalog, ledger, self.now, random.Random(rng_seed),
                                timedelta(minutes=settings.session_expiry_minutes))
        self.progress = ProgressService(store, catalog, ledger, self.now)
        self.history = HistoryService(store, catalog, ledger, self.now)
        self.daily = DailyService(store, catalog, ledger, self.now)
        self.account = AccountService(store, catalog, ledger, self.now)
        self.interviews = InterviewService(store, catalog, ledger, self.now)

    async def close(self) -> None:
        await self.store.dispose()


__all__ = ["Coach"]
