"""Fixed data for the pictures: empty, a single answer, and a year of history, built the
way the coach returns it (the benchmark draws from these too)."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

from bot.pictures.models import MapPicture, StatsPicture, WeekPicture
from coach.history.rules import mastery, mastery_level, next_to_study, streak_calendar, week_start
from coach.results import (
    BiteAccuracy, BiteMastery, DayAnswers, DueDay, GuildWeek, LeaderRow, MasteryMap, MissedBite,
    ProgressHistory, Stats, WeekPoint,
)

TODAY = date(2026, 11, 30)  # a Monday
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
WEEKS = 12
NAMES = {"latin": "Ada", "cjk_emoji": "さくら🌸 田中 김민준 🔥", "dollars": "$x^2$ \\frac{1}{2} money$"}
GROUPS = ("llm", "llm", "llm", "serving", "serving", "quantization", "attention", "memory", "edge")


def _stats(answered=0, correct=0, xp=0, streak=0, due=0) -> Stats:
    return Stats(user_id=7, xp_total=xp, xp_guild=xp, streak=streak, streak_at_risk=False, answered=answered,
                 correct=correct, accuracy_by_bite=(BiteAccuracy("kv-cache", "The KV cache", answered, correct),)
                 if answered else (), last_attempts=(), reviews_due=due)


def _history(activity, weeks, due, streak) -> ProgressHistory:
    first = week_start(TODAY) - timedelta(weeks=WEEKS - 1)
    calendar = streak_calendar(activity, first, week_start(TODAY) + timedelta(days=6), TODAY)
    return ProgressHistory(7, "UTC", TODAY, tuple(weeks), calendar,
                           tuple(DueDay(TODAY + timedelta(days=i), n) for i, n in enumerate(due)), streak)


def _weeks(rows):
    first = week_start(TODAY) - timedelta(weeks=WEEKS - 1)
    return [WeekPoint(first + timedelta(weeks=i), *row) for i, row in enumerate(rows)]


def stats_empty(name: str = NAMES["latin"]) -> StatsPicture:
    history = _history([], _weeks([(0, 0, 0, 0, 0)] * WEEKS), [0] * 14, 0)
    return StatsPicture(name, _stats(), history)


def stats_single(name: str = NAMES["latin"]) -> StatsPicture:
    rows = [(0, 0, 0, 0, 0)] * (WEEKS - 1) + [(1, 1, 0, 0, 10)]
    history = _history([TODAY], _weeks(rows), [0, 1] + [0] * 12, 1)
    return StatsPicture(name, _stats(1, 1, 10, 1, 0), history)


def stats_year(name: str = NAMES["cjk_emoji"], seed: int = 3) -> StatsPicture:
    rng = random.Random(seed)
    days = [TODAY - timedelta(days=i) for i in range(365)]
    activity = [d for d in days if rng.random() < 0.8]
    rows = []
    for _ in range(WEEKS):
        answered = rng.randint(10, 60)
        explained = rng.randint(0, 6)
        rows.append((answered, rng.randint(answered // 2, answered), explained, rng.randint(explained, 4 * explained),
                     rng.randint(80, 600)))
    due = [rng.randint(0, 12) for _ in range(14)]
    history = _history(activity, _weeks(rows), due, 17)
    return StatsPicture(name, _stats(4210, 3300, 41230, 17, due[0]), history)


def map_data(name: str = NAMES["latin"], bites: int = 49, practised: float = 0.6, seed: int = 5) -> MapPicture:
    rng = random.Random(seed)
    rows = []
    for i in range(bites):
        group = GROUPS[i % len(GROUPS)] if i < 40 else f"tag-{i}"
        if rng.random() < practised:
            answered = rng.randint(1, 12)
            correct = rng.randint(0, answered)
            score = rng.choice([None, 1, 2, 3, 4])
            stability = rng.choice([None, 1.5, 4.0, 12.0, 40.0, 120.0])
            due = NOW + timedelta(days=rng.randint(-3, 20)) if stability else None
        else:
            answered = correct = 0
            score = stability = due = None
        value = mastery(answered, correct, score, stability)
        rows.append(BiteMastery(f"bite-{i:02d}", f"Bite number {i} with a fairly long title about serving",
                                group, answered, correct, score, stability, due, value, mastery_level(value)))
    next_id, reason = next_to_study(rows, NOW)
    return MapPicture(name, MasteryMap(7, "inference", "Inference", tuple(rows), next_id, reason, NOW))


def map_empty(name: str = NAMES["latin"], bites: int = 49) -> MapPicture:
    return map_data(name, bites, practised=0.0)


def week_data(server: str = "ML Interview Prep 🚀", answered: bool = True, seed: int = 11) -> WeekPicture:
    rng = random.Random(seed)
    start = TODAY - timedelta(days=7)
    days = []
    for i in range(7):
        day = start + timedelta(days=i)
        if i == 5:
            days.append(DayAnswers(day, False, "", "", (), -1))
            continue
        counts = tuple(rng.randint(0, 9) for _ in range(4)) if answered else (0, 0, 0, 0)
        days.append(DayAnswers(day, True, f"bite-{i}", f"Daily bite {i}: continuous batching", counts, rng.randint(0, 3)))
    missed = tuple(MissedBite(f"bite-{i}", f"Most missed bite {i} about KV caches", 20 - i, 12 - 2 * i)
                   for i in range(5)) if answered else ()
    leaders = tuple(LeaderRow(r + 1, 100 + r, 500 - 70 * r) for r in range(5)) if answered else ()
    names = {100: "Ada", 101: NAMES["cjk_emoji"], 102: NAMES["dollars"], 103: "Grace Hopper", 104: "Z" * 40}
    week = GuildWeek(1, "Europe/Berlin", 0, start, start + timedelta(days=6), tuple(days), missed, leaders,
                     sum(sum(d.counts) for d in days))
    return WeekPicture(server, week, names)


def week_empty() -> WeekPicture:
    start = TODAY - timedelta(days=7)
    days = tuple(DayAnswers(start + timedelta(days=i), False, "", "", (), -1) for i in range(7))
    return WeekPicture("Quiet server", GuildWeek(1, "UTC", 0, start, start + timedelta(days=6), days, (), (), 0), {})


__all__ = ["stats_empty", "stats_single", "stats_year", "map_data", "map_empty", "week_data",
           "week_empty"]
