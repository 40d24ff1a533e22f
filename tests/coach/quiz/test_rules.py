"""The question draw and the option shuffle."""

from __future__ import annotations

import random

from coach.quiz.rules import draw_questions, shown_index, shown_options, shuffled_order


def test_draw_never_repeats_and_respects_count():
    pool = [f"q{i}" for i in range(10)]
    drawn = draw_questions(pool + pool[:3], {}, 7, random.Random(1))
    assert len(drawn) == len(set(drawn)) == 7 and set(drawn) <= set(pool)
    assert len(draw_questions(pool, {}, 30, random.Random(1))) == 10


def test_draw_is_weighted_toward_unseen_and_missed():
    pool = [f"q{i}" for i in range(20)]
    known = {q: True for q in pool[:10]}
    missed = {q: False for q in pool[10:15]}
    rng = random.Random(3)
    hits = {"known": 0, "missed": 0, "unseen": 0}
    for _ in range(400):
        for q in draw_questions(pool, {**known, **missed}, 5, rng):
            hits["known" if q in known else "missed" if q in missed else "unseen"] += 1
    per_known, per_missed, per_unseen = hits["known"] / 10, hits["missed"] / 5, hits["unseen"] / 5
    assert per_missed > 2.5 * per_known and per_unseen > 2.5 * per_known


def test_shuffle_maps_shown_to_authored():
    order = shuffled_order(random.Random(5))
    assert sorted(order) == [0, 1, 2, 3]
    options = ("a", "b", "c", "d")
    shown = shown_options(options, order)
    for authored in range(4):
        assert shown[shown_index(order, authored)] == options[authored]
