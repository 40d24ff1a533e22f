"""Picture data in, PNG bytes out: the pure functions the worker processes run.

`figure(data)` builds the matplotlib Figure (object API, never pyplot) — tests count its
artists; `render(data)` turns it into PNG bytes; `describe(data)` is the same picture in
words for screen readers and loads no matplotlib."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from bot.pictures import bitemap, scorecard, stats, style, week
from bot.pictures.models import MapPicture, ScorecardPicture, StatsPicture, WeekPicture

_BUILDERS = {StatsPicture: stats, MapPicture: bitemap, WeekPicture: week, ScorecardPicture: scorecard}


def _module(data):
    try:
        return _BUILDERS[type(data)]
    except KeyError:
        raise TypeError(f"no picture for {type(data).__name__}") from None


def figure(data):
    """The matplotlib Figure for `data` (a StatsPicture, MapPicture, WeekPicture or ScorecardPicture)."""
    return _module(data).build_figure(data)


def render(data) -> bytes:
    """PNG bytes for `data`."""
    return style.png_bytes(figure(data))


def describe(data) -> str:
    """The picture in words (at most 1024 characters: Discord's limit for a description)."""
    text = _module(data).describe(data)
    return text if len(text) <= 1024 else text[:1023].rstrip() + "…"


def warm() -> None:
    """Load matplotlib, register the fonts and draw each kind of picture once, touching every
    font of the fallback list, so the first real render is as quick as the next."""
    style.fonts()
    for data in samples():
        render(data)


def samples():
    """Small but complete data for each picture: for warming up and for smoke checks."""
    from coach.results import (
        BiteMastery, CalendarDay, DayAnswers, DueDay, GuildWeek, LeaderRow, MasteryMap, MissedBite, ProgressHistory,
        Stats, WeekPoint,
    )

    today = date(2026, 3, 2)
    # Characters for the fonts names use most (CJK, emoji, symbols, Arabic, Devanagari, Thai),
    # so warming up loads them; the rarer scripts load on first use, in milliseconds.
    sample_name = "Ada さくら 김 🌸 ✓ ⚙ محمد प्रिया สม"
    weeks = tuple(WeekPoint(today - timedelta(weeks=11 - i), 4, 3, 1, 3, 40) for i in range(12))
    calendar = tuple(CalendarDay(today - timedelta(days=83 - i), "active" if i % 3 else "freeze") for i in range(84))
    history = ProgressHistory(1, "UTC", today, weeks, calendar, tuple(DueDay(today + timedelta(days=i), i % 3)
                                                                      for i in range(14)), 3)
    stats_data = Stats(1, 480, 480, 3, False, 48, 36, (), (), 2)
    bites = tuple(BiteMastery(f"b{i}", f"Bite {i}", f"g{i % 3}", i, i // 2, 3, 5.0, None, 0.2 * (i % 5), level)
                  for i, level in enumerate(("new", "weak", "learning", "solid", "mastered", "weak")))
    mastery = MasteryMap(1, "t", "Track", bites, "b1", "weakest", datetime(2026, 3, 2, tzinfo=timezone.utc))
    days = tuple(DayAnswers(today + timedelta(days=i), i != 3, f"b{i}", f"Bite {i}", (1, 2, 3, 4) if i != 3 else (),
                            i % 4 if i != 3 else -1) for i in range(7))
    guild_week = GuildWeek(1, "UTC", 0, today, today + timedelta(days=6), days, (MissedBite("b1", "Bite 1", 4, 2),),
                           (LeaderRow(1, 5, 120),), 24)
    from coach.interview.rules import QuestionCard, Scorecard

    points = tuple((f"Key point {i} of the sample question, long enough to wrap the row", kind, outcome)
                   for i, (kind, outcome) in enumerate((("core", "landed"), ("core", "rescued"), ("core", "wrong"),
                                                        ("depth", "partly"), ("depth", "missed"))))
    card = Scorecard((QuestionCard("b1", "Bite 1", 2, points, True, 2, True),), "lean_no", ("coaching",), xp=5)
    return (StatsPicture(sample_name, stats_data, history), MapPicture(sample_name, mastery),
            WeekPicture(sample_name, guild_week, {5: sample_name}), ScorecardPicture(sample_name, card))
