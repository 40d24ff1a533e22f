"""Progress over time as pure functions: week boundaries, the streak calendar, how well a
member knows a bite (mastery), and which bite to study next. The history service
(`service.py`) reads the rows; everything worth testing is here."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Iterable, NamedTuple, Sequence

from coach.results import BiteMastery, CalendarDay, DueDay, MasteryLevel
from coach.progress.streaks import StreakState, record_activity

# Weeks of a member's history the pictures show, and days of reviews ahead.
HISTORY_WEEKS = 12
DUE_DAYS_AHEAD = 14
# The reviews a summary calls "coming up": today (everything overdue included) and the
# DUE_SOON_DAYS days after it, the last one included — on a Wednesday, Thursday to the next
# Wednesday. One definition for the /stats picture's title, its bars and its description.
DUE_SOON_DAYS = 7

# Mastery: the mean of whichever of these a member has — quiz accuracy (shrunk towards
# one half, so one right answer is not "mastered"), the best explanation score out of 4,
# and memory strength from FSRS stability S (days): S / (S + STABILITY_HALF_DAYS), so a
# card remembered for 10 days counts one half and one for 90 days nine tenths.
ACCURACY_PRIOR = 1  # one imaginary right and one wrong answer
STABILITY_HALF_DAYS = 10.0
LEVELS: tuple[tuple[float, MasteryLevel], ...] = ((0.85, "mastered"), (0.7, "solid"), (0.4, "learning"), (0.0, "weak"))
WEAK_BELOW = 0.7  # a practised bite under this is a candidate for "study next"


def week_start(day: date, first_weekday: int = 0) -> date:
    """The first day of the week `day` falls in (first_weekday: 0 = Monday ... 6 = Sunday)."""
    return day - timedelta(days=(day.weekday() - first_weekday) % 7)


def streak_calendar(activity: Iterable[date], first: date, last: date, today: date) -> tuple[CalendarDay, ...]:
    """Every day from `first` to `last`: active, freeze, missed or future.

    A freeze day is a missed day the streak rule forgave (one per ISO week,
    `coach.progress.streaks.record_activity`), found by replaying the rule over the active days in
    order. The replay must start at least one week before `first` to mark the first week
    exactly: the rule's state carries over at most one week. A missed yesterday that today's
    activity could still forgive is shown as missed until it is."""
    active = sorted({d for d in activity if d <= today})
    freezes: set[date] = set()
    state = StreakState()
    for day in active:
        after = record_activity(state, day)
        if state.last_day is not None and (day - state.last_day).days == 2 and after.days == state.days + 1:
            freezes.add(day - timedelta(days=1))
        state = after
    active_set = set(active)
    out = []
    day = first
    while day <= last:
        if day > today:
            state_name = "future"
        elif day in active_set:
            state_name = "active"
        elif day in freezes:
            state_name = "freeze"
        else:
            state_name = "missed"
        out.append(CalendarDay(day, state_name))
        day += timedelta(days=1)
    return tuple(out)


class DueSoon(NamedTuple):
    today: int  # due today, everything overdue included
    ahead: int  # due on the days after today up to `until`
    until: date  # the window's last day, included


def due_soon(today: date, due: Iterable[DueDay], days: int = DUE_SOON_DAYS) -> DueSoon:
    """The reviews in the window: due today (or earlier), and due on the `days` days after
    today, up to and including `today + days`. By date, not by position in `due`."""
    until = today + timedelta(days=days)
    now = ahead = 0
    for entry in due:
        if entry.day <= today:
            now += entry.count
        elif entry.day <= until:
            ahead += entry.count
    return DueSoon(now, ahead, until)


def mastery(answered: int, correct: int, best_score: int | None, stability: float | None) -> float | None:
    """0-1, or None for a bite never practised (see the constants above)."""
    parts = []
    if answered:
        parts.append((correct + ACCURACY_PRIOR) / (answered + 2 * ACCURACY_PRIOR))
    if best_score is not None:
        parts.append(max(0, min(4, best_score)) / 4)
    if stability is not None and stability > 0:
        parts.append(stability / (stability + STABILITY_HALF_DAYS))
    return sum(parts) / len(parts) if parts else None


def mastery_level(value: float | None) -> MasteryLevel:
    if value is None:
        return "new"
    return next(level for floor, level in LEVELS if value >= floor)


def next_to_study(bites: Sequence[BiteMastery], now: datetime) -> tuple[str | None, str]:
    """The bite to study next and why: the most overdue review ("due"), else the weakest
    practised bite under WEAK_BELOW ("weakest"), else the first bite not yet practised in
    the track's order ("new"), else the least mastered ("weakest")."""
    due = [b for b in bites if b.due is not None and b.due <= now]
    if due:
        return min(due, key=lambda b: (b.due, b.bite_id)).bite_id, "due"
    practised = [b for b in bites if b.mastery is not None]
    weak = [b for b in practised if b.mastery < WEAK_BELOW]
    if weak:
        return min(weak, key=lambda b: (b.mastery, b.bite_id)).bite_id, "weakest"
    fresh = next((b for b in bites if b.mastery is None), None)
    if fresh is not None:
        return fresh.bite_id, "new"
    if practised:
        return min(practised, key=lambda b: (b.mastery, b.bite_id)).bite_id, "weakest"
    return None, ""
