"""Quiz-session rules as pure functions: which questions to draw and in what
option order. The engine stores the result so a resumed session looks the same."""

from __future__ import annotations

import random
from typing import Mapping, Sequence

MIN_COUNT, MAX_COUNT, DEFAULT_COUNT = 5, 30, 10
OPTIONS_PER_QUESTION = 4

# Relative chance of being drawn: questions never seen or last answered wrong
# come up four times as often as ones already answered right.
WEIGHT_UNSEEN = 4.0
WEIGHT_MISSED = 4.0
WEIGHT_KNOWN = 1.0


def question_weight(last_correct: bool | None) -> float:
    if last_correct is None:
        return WEIGHT_UNSEEN
    return WEIGHT_KNOWN if last_correct else WEIGHT_MISSED


def draw_questions(
    pool: Sequence[str], last_result: Mapping[str, bool], count: int, rng: random.Random
) -> list[str]:
    """Up to `count` distinct ids from `pool`, weighted by `question_weight`.

    `last_result` maps a question id to whether the user's latest answer was right;
    ids absent from it are unseen. Weighted sampling without replacement
    (Efraimidis-Spirakis: keep the largest u ** (1 / w)).
    """
    unique = list(dict.fromkeys(pool))
    keyed = [(rng.random() ** (1.0 / question_weight(last_result.get(qid))), qid) for qid in unique]
    keyed.sort(reverse=True)
    return [qid for _key, qid in keyed[: max(0, count)]]


def shuffled_order(rng: random.Random, size: int = OPTIONS_PER_QUESTION) -> list[int]:
    """order[shown_index] = authored_index."""
    order = list(range(size))
    rng.shuffle(order)
    return order


def shown_index(order: Sequence[int], authored_index: int) -> int:
    return list(order).index(authored_index)


def shown_options(options: Sequence[str], order: Sequence[int]) -> tuple[str, ...]:
    return tuple(options[i] for i in order)
