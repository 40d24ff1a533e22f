"""The streak rule, as pure functions.

Streak: one point per calendar day with any activity, in the user's timezone.
One missed day per ISO week (the week the missed day falls in) is forgiven: the
"freeze". Missing two days in a row, or a second day in the same week, resets it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date, timedelta

def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


@dataclass(frozen=True)
class StreakState:
    days: int = 0
    last_day: date | None = None
    freeze_week: str | None = None  # the week whose freeze is spent


def record_activity(state: StreakState, today: date) -> StreakState:
    """The streak after some activity on local date `today`."""
    if state.last_day is None or state.days <= 0:
        return replace(state, days=1, last_day=today)
    gap = (today - state.last_day).days
    if gap <= 0:  # same day, or a clock that moved back: nothing changes
        return state
    if gap == 1:
        return replace(state, days=state.days + 1, last_day=today)
    missed = today - timedelta(days=1)
    if gap == 2 and state.freeze_week != iso_week(missed):
        return StreakState(days=state.days + 1, last_day=today, freeze_week=iso_week(missed))
    return replace(state, days=1, last_day=today)


def current_streak(state: StreakState, today: date) -> int:
    """The streak as it stands on `today` (0 once it can no longer be saved)."""
    if state.last_day is None or state.days <= 0:
        return 0
    gap = (today - state.last_day).days
    if gap <= 1:
        return state.days
    if gap == 2 and state.freeze_week != iso_week(today - timedelta(days=1)):
        return state.days
    return 0


def streak_at_risk(state: StreakState, today: date) -> bool:
    """True when the streak is alive but ends tonight without activity today."""
    if state.last_day is None or current_streak(state, today) == 0:
        return False
    gap = (today - state.last_day).days
    if gap == 2:  # today's freeze is already being used for yesterday
        return True
    # Active yesterday: tonight is only survivable with this week's freeze unspent.
    return gap == 1 and state.freeze_week == iso_week(today)
