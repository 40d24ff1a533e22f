"""FSRS spaced review, day-granular: no intra-day learning steps, so a miss comes
back tomorrow rather than in ten minutes."""

from __future__ import annotations

from datetime import datetime

from fsrs import Card, Rating, Scheduler

QUESTION = "question"
BITE = "bite"


def make_scheduler(enable_fuzzing: bool = True) -> Scheduler:
    return Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=enable_fuzzing)


def rating_for_answer(correct: bool) -> Rating:
    return Rating.Good if correct else Rating.Again


def rating_for_grade(score: int) -> Rating:
    """Explanation grade 0-4: 0-1 Again, 2 Hard, 3 Good, 4 Easy."""
    if score <= 1:
        return Rating.Again
    return {2: Rating.Hard, 3: Rating.Good}.get(score, Rating.Easy)


def new_card(now: datetime) -> Card:
    # card_id is epoch milliseconds by FSRS convention; taken from the injected clock.
    return Card(card_id=int(now.timestamp() * 1000), due=now)


def review(scheduler: Scheduler, stored: dict | None, rating: Rating, now: datetime) -> Card:
    """Apply one review to a stored card (or a fresh one) and return the new card."""
    card = Card.from_dict(stored) if stored else new_card(now)
    updated, _log = scheduler.review_card(card, rating, review_datetime=now)
    return updated
