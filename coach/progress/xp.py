"""XP: how much each kind of activity earns (each source is credited once, by the service
that records the activity)."""

from __future__ import annotations

XP_CORRECT_ANSWER = 10
XP_FINISH_BONUS = 20  # only for answering every question of a session
XP_DAILY_CORRECT = 10
XP_PER_GRADE_POINT = 5  # an explanation graded 0-4 earns 0-20


def explanation_xp(score: int) -> int:
    return XP_PER_GRADE_POINT * max(0, min(4, score))
