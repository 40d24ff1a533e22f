"""FSRS ratings and day-granular reviews."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from fsrs import Rating

from coach.progress.review import make_scheduler, rating_for_answer, rating_for_grade, review


def test_ratings():
    assert rating_for_answer(True) == Rating.Good and rating_for_answer(False) == Rating.Again
    assert [rating_for_grade(s) for s in range(5)] == [Rating.Again, Rating.Again, Rating.Hard, Rating.Good, Rating.Easy]


def test_reviews_are_day_granular():
    scheduler = make_scheduler(enable_fuzzing=False)
    now = datetime(2026, 3, 2, 12, tzinfo=timezone.utc)
    missed = review(scheduler, None, Rating.Again, now)
    assert missed.due - now == timedelta(days=1)  # tomorrow, not in ten minutes
    known = review(scheduler, None, Rating.Good, now)
    assert known.due - now >= timedelta(days=1)
    again = review(scheduler, known.to_dict(), Rating.Again, known.due)
    assert again.due - known.due == timedelta(days=1)
    assert known.card_id == int(now.timestamp() * 1000)
