"""The score, computed in code from verdicts (DESIGN.md "The grading scale").

The LLM or embedding judge decides each key point; neither picks the number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from coach.grading.models import Status

COVERAGE_CREDIT = {"covered": 1.0, "partial": 0.5, "missing": 0.0, "wrong": 0.0}


@dataclass(frozen=True)
class ScoreThresholds:
    """Coverage cut-offs for 4 / 3 / 2; anything above zero is at least 1."""

    full: float = 0.9
    most: float = 0.6
    half: float = 0.25


DEFAULT_THRESHOLDS = ScoreThresholds()  # DESIGN.md's defaults
# Calibrated on the dev split: with 0.25, one key point of four buried in filler scored 2
# where the scale says 1 (tests/data/README-grading.md).
CALIBRATED_THRESHOLDS = ScoreThresholds(full=0.9, most=0.6, half=0.3)


def coverage(statuses: Iterable[Status]) -> float:
    statuses = list(statuses)
    if not statuses:
        return 0.0
    return sum(COVERAGE_CREDIT[s] for s in statuses) / len(statuses)


def score_answer(
    statuses: Iterable[Status],
    *,
    red_flag: bool,
    injection: bool,
    keyword_soup: bool,
    thresholds: ScoreThresholds = DEFAULT_THRESHOLDS,
) -> int:
    statuses = list(statuses)
    if injection or keyword_soup:
        return 0
    if red_flag:
        return 1
    c = coverage(statuses)
    if c >= thresholds.full:
        s = 4
    elif c >= thresholds.most:
        s = 3
    elif c >= thresholds.half:
        s = 2
    elif c > 0:
        s = 1
    else:
        s = 0
    if "wrong" in statuses:
        s = min(s, 2)
    return s
