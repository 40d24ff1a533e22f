"""`Coach`: the one object the adapters (Discord, console, CLI) talk to.

It is composed of the domain services, each in its own module:
quiz sessions (`quiz_service`), progress and reviews (`progress_service`),
progress over time and mastery (`history_service`), settings/forget/reports
(`account_service`) and the daily rotation (`daily_service`). They share the store, catalog, settings and injected clock
through `EngineBase`.

Errors: calls raise `coach.errors.InvalidRequest`, `NotFound` or `NotOwner`,
except the button-click paths (`answer`, `record_daily_answer`), whose everyday
outcomes come back in `AnswerResult.outcome`.
"""

from __future__ import annotations

from coach.account.service import AccountService
from coach.daily.service import DailyService
from coach.history.service import HistoryService
from coach.progress.service import ProgressService
from coach.quiz.service import QuizService


class Coach(QuizService, ProgressService, HistoryService, AccountService, DailyService):
    """Coach(store, catalog, settings, clock=utcnow, rng_seed=None, enable_fuzzing=True)."""

    async def close(self) -> None:
        await self.store.dispose()


__all__ = ["Coach"]
