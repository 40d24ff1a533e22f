"""The CPU reading of an interview's follow-up answer: one key point, one short answer.

A follow-up answer is short and about one point, the shape of the texts the key-point model
(coach.grading.point_model) was trained on, so the model reads the point against the whole
answer and each of its sentences, and the point is decided as the trained judge decides one
(`point_judge.point_status`): wrong when some piece says it wrongly more surely than any
piece makes it, else covered or partial by its best piece, else missing.

Its three thresholds are fitted on the follow-up dev sets (`coach grader fit`, Cohen's kappa
with the graders' labels), not on whole answers: a whole answer's thresholds read a short,
direct follow-up answer that makes its point as missing a third of the time. The fit may tell
at most `FALSE_WRONG` of the dev answers that make their point that they stated it wrongly:
"wrong" turns the interview's signal to a no, so a member who rescued a point must not be told
they got it wrong. (On dev that cap leaves the model no usable "wrong" level: like the CPU
judges on whole answers, it calls no point wrong.)
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import numpy as np

from coach.grading.models import KeyPointVerdict
from coach.grading.point_calibration import CODES, status_codes_of
from coach.grading.point_judge import COVERED, PARTIAL, PointThresholds, WRONG, clauses, point_status
from coach.grading.point_model import PointModel, point_query
from coach.grading.quotes import find_quote
from content import Bite

LEVELS = np.round(np.arange(0.05, 0.951, 0.025), 3)
NEVER = 1.01  # a level no probability reaches
FALSE_WRONG = 0.02  # at most this share of dev answers that make their point may be called wrong
FOLD_SEED = 28


@dataclass(frozen=True)
class FollowUpThresholds:
    covered: float
    partial: float
    wrong: float

    def as_point(self) -> PointThresholds:
        return PointThresholds(covered=self.covered, partial=self.partial, wrong=self.wrong, purpose=1.0,
                               red_flag_sure=NEVER, red_flag_possible=NEVER, mechanism=0.0, topic=0.0)


@dataclass(frozen=True)
class FollowUpReading:
    pieces: list[str]  # the sentences, then the whole answer (shortest first is restored by `decide`)
    point: np.ndarray  # piece x label


def pieces_of(answer: str, split_sentences) -> list[str]:
    whole = answer.strip()
    sentences = [s.strip() for s in split_sentences(whole) if any(ch.isalnum() for ch in s)]
    return [s for s in sentences if s != whole] + [whole]


def decide(reading: FollowUpReading, t: FollowUpThresholds) -> tuple[str, int | None]:
    """The point's status and the piece that decided it."""
    order = np.argsort([len(p) for p in reading.pieces], kind="stable")
    status, unit = point_status(reading.point[order], t.as_point())
    return status, (int(order[unit]) if unit is not None else None)


class FollowUpReader:
    def __init__(self, model: PointModel, split_sentences, thresholds: FollowUpThresholds | None):
        self.model = model
        self._split = split_sentences
        self.thresholds = thresholds

    def reading(self, bite: Bite, point: int, answer: str) -> FollowUpReading:
        pieces = pieces_of(answer, self._split)
        claim = point_query(bite.key_points[point].point)
        return FollowUpReading(pieces=pieces, point=self.model.probabilities([(claim, p) for p in pieces]))

    def read(self, bite: Bite, point: int, answer: str) -> KeyPointVerdict:
        """The point's verdict with its evidence. (No red flag: the bite's mistake is judged on
        the first answer; read on follow-ups at the trained judge's sure level, it fell on 6 of
        268 dev answers that made their point, past the 2% a sure flag may.)"""
        reading = self.reading(bite, point, answer)
        status, unit = decide(reading, self.thresholds)
        key_point = bite.key_points[point]
        evidence = self._evidence(key_point.point, reading.pieces[unit], status, answer) if unit is not None else None
        return KeyPointVerdict(point=key_point.point, kind=key_point.kind, status=status, evidence=evidence)

    def _evidence(self, point: str, piece: str, status: str, answer: str) -> str | None:
        """The shortest clause of the deciding piece that carries the verdict on its own."""
        candidates = sorted(set(clauses(piece)) - {piece}, key=len)
        probs = self.model.probabilities([(point_query(point), c) for c in candidates])
        t = self.thresholds
        for clause, row in zip(candidates, probs):
            if (status == "covered" and row[COVERED] >= t.covered) or (status == "wrong" and row[WRONG] >= t.wrong) \
                    or (status == "partial" and row[COVERED] + row[PARTIAL] >= t.partial):
                return find_quote(clause, answer) or find_quote(piece, answer)
        return find_quote(piece, answer)


def _maxima(readings: list[FollowUpReading]) -> np.ndarray:
    """Per reading: the best p(covered), p(covered)+p(partial) and p(wrong) over its pieces,
    all a status depends on (`point_status`)."""
    return np.array([[r.point[:, COVERED].max(), (r.point[:, COVERED] + r.point[:, PARTIAL]).max(),
                      r.point[:, WRONG].max()] for r in readings])


def _statuses(m: np.ndarray, t: FollowUpThresholds) -> np.ndarray:
    """`point_status` for many readings at once (codes into CODES)."""
    return status_codes_of(m[:, 0], m[:, 1], m[:, 2], t)


def _codes(gold: list[str]) -> np.ndarray:
    return np.array([CODES.index(g) for g in gold])


def cohen_kappa(gold: np.ndarray, pred: np.ndarray, k: int = len(CODES)) -> float:
    table = np.zeros((k, k))
    np.add.at(table, (gold, pred), 1)
    n = table.sum()
    expected = (table.sum(1) @ table.sum(0)) / n / n
    observed = np.trace(table) / n
    return float((observed - expected) / (1 - expected)) if expected < 1 else 1.0


def fit(readings: list[FollowUpReading], gold: list[str]) -> FollowUpThresholds:
    """The three levels whose verdicts agree best with the graders' (Cohen's kappa) on dev,
    among those that call at most FALSE_WRONG of the answers that make their point wrong."""
    m, codes = _maxima(readings), _codes(gold)
    made = codes == CODES.index("covered")
    best, chosen = -2.0, None
    for covered, partial, wrong in itertools.product(LEVELS, LEVELS, (*LEVELS, NEVER)):
        if partial > covered:
            continue
        t = FollowUpThresholds(float(covered), float(partial), float(wrong))
        pred = _statuses(m, t)
        if made.any() and np.mean(pred[made] == CODES.index("wrong")) > FALSE_WRONG:
            continue
        kappa = cohen_kappa(codes, pred)
        if kappa > best + 1e-9:
            best, chosen = kappa, t
    return chosen


def agreement(readings: list[FollowUpReading], gold: list[str], t: FollowUpThresholds) -> dict:
    codes, pred = _codes(gold), _statuses(_maxima(readings), t)
    return {"n": len(gold), "kappa": round(cohen_kappa(codes, pred), 4), "exact": round(float((codes == pred).mean()), 4)}


def cross_validate(readings: list[FollowUpReading], gold: list[str], bites: list[str], folds: int = 5) -> dict:
    """Kappa with whole bites held out: each fold's levels fitted on the other bites."""
    order = sorted(set(bites))
    random.Random(FOLD_SEED).shuffle(order)
    codes, pred = _codes(gold), np.zeros(len(gold), int)
    for fold in range(folds):
        held = set(order[fold::folds])
        train = [i for i, b in enumerate(bites) if b not in held]
        test = [i for i, b in enumerate(bites) if b in held]
        t = fit([readings[i] for i in train], [gold[i] for i in train])
        pred[test] = _statuses(_maxima([readings[i] for i in test]), t)
    return {"n": len(gold), "folds": folds, "kappa": round(cohen_kappa(codes, pred), 4),
            "exact": round(float((codes == pred).mean()), 4)}
