"""Tune thresholds on the dev split (never on test), in two stages.

1. The score function's coverage cut-offs (`fit_score_thresholds`): the values under
   which the function, applied to the hand-labelled key-point verdicts, best
   reproduces the hand-given scores (ties go to the values nearest DESIGN.md's).
2. The embedding judge's similarity thresholds (`search`), with the score function
   from stage 1 fixed.

Similarities are computed once per answer; every threshold combination is then
scored from them with array arithmetic, so a full grid search takes seconds.
The red-flag threshold (on the probability of coach.grading.red_flags' model, which is
fitted on catalog texts, not on dev) is chosen for red-flag F1 (with a recall floor), not for kappa:
chosen for kappa they bought tiny gains with many false red flags (a "wrong" answer
flagged scores 1 instead of 0, close enough for kappa, but a false "that's the mistake
interviewers listen for" is the worst feedback a correct answer can get). The coverage
thresholds are then chosen for kappa. `cross_validated_red_flag` estimates how the
red-flag fit carries over to unseen bites.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from coach.grading.detectors import keyword_soup, looks_like_injection
from coach.grading.embedding_judge import EmbeddingJudge, EmbeddingThresholds
from coach.grading.eval import quadratic_weighted_kappa
from coach.grading.scoring import ScoreThresholds, score_answer

COVERED = np.round(np.arange(0.45, 0.751, 0.025), 3)
PARTIAL = np.round(np.arange(0.30, 0.651, 0.025), 3)
RED_FLAG = np.round(np.arange(0.20, 0.801, 0.02), 3)  # probability from the red-flag model
SCORE_GRID = {
    "full": (0.8, 0.85, 0.9, 0.95),
    "most": (0.5, 0.55, 0.6, 0.65, 0.7),
    "half": (0.2, 0.25, 0.3, 0.35, 0.4),
}


def fit_score_thresholds(rows: list[dict], default: ScoreThresholds = ScoreThresholds()) -> tuple[ScoreThresholds, float]:
    """Cut-offs under which score_answer(hand key-point labels) best matches the hand scores."""
    graded = [r for r in rows if r["bite_id"] is not None]
    best, best_key = default, None
    for full, most, half in itertools.product(*SCORE_GRID.values()):
        if not half < most < full:
            continue
        candidate = ScoreThresholds(full=full, most=most, half=half)
        exact = sum(
            score_answer(r["key_points"], red_flag=r["red_flag"], injection=r["injection"],
                         keyword_soup=r["kind"] == "keyword_soup", thresholds=candidate) == r["score"]
            for r in graded
        ) / len(graded)
        distance = abs(full - default.full) + abs(most - default.most) + abs(half - default.half)
        key = (exact, -distance)
        if best_key is None or key > best_key:
            best, best_key = candidate, key
    return best, best_key[0]


@dataclass(frozen=True)
class Calibration:
    embedding: EmbeddingThresholds
    score: ScoreThresholds
    qwk: float
    exact: float
    red_flag_recall: float
    red_flag_precision: float
    n: int


@dataclass
class _Features:
    point_best: list[np.ndarray]  # per row: best similarity of each key point
    flag_probability: np.ndarray  # per row: the highest red-flag probability of any unit
    zeroed: np.ndarray  # injection or keyword soup: score 0 whatever else
    gold: np.ndarray
    gold_flag: np.ndarray
    bites: list[str]


def features(judge: EmbeddingJudge, catalog, rows: list[dict]) -> _Features:
    rows = [r for r in rows if r["bite_id"] is not None]
    f = _Features([], np.zeros(len(rows)), np.zeros(len(rows), bool), np.array([r["score"] for r in rows]),
                  np.array([r["red_flag"] for r in rows]), [r["bite_id"] for r in rows])
    for i, row in enumerate(rows):
        bite = catalog.bites[row["bite_id"]]
        sims = judge.similarities(bite, row["answer"])
        f.point_best.append(sims.points.max(axis=1))
        f.flag_probability[i] = sims.red_flag_probability().max()
        injected = looks_like_injection(row["answer"]) or bool((sims.injection >= judge.thresholds.injection).any())
        f.zeroed[i] = injected or keyword_soup(row["answer"])
    return f


def _coverage_scores(f: _Features, covered: float, partial: float, t: ScoreThresholds) -> np.ndarray:
    scores = []
    for best in f.point_best:
        c = float(np.mean(np.where(best >= covered, 1.0, np.where(best >= partial, 0.5, 0.0))))
        scores.append(4 if c >= t.full else 3 if c >= t.most else 2 if c >= t.half else 1 if c > 0 else 0)
    return np.array(scores)


def _flag_metrics(flagged: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    tp = int((flagged & gold).sum())
    recall, precision = tp / max(1, int(gold.sum())), tp / max(1, int(flagged.sum()))
    return recall, precision, (2 * recall * precision / (recall + precision) if tp else 0.0)


def fit_red_flag(f: _Features, *, min_recall: float = 0.8, rows: np.ndarray | None = None) -> float:
    """The probability threshold with the best red-flag F1 among those meeting the recall
    floor (if any does; else the best F1 overall). Among tied thresholds, the middle one:
    the widest margin on both sides."""
    rows = np.arange(len(f.gold)) if rows is None else rows
    keys = []
    for level in RED_FLAG:
        recall, _, f1 = _flag_metrics(f.flag_probability[rows] >= level, f.gold_flag[rows])
        keys.append((recall >= min_recall, round(f1, 4)))
    best = max(keys)
    tied = [float(level) for level, key in zip(RED_FLAG, keys) if key == best]
    return tied[len(tied) // 2]


def cross_validated_red_flag(f: _Features, *, min_recall: float = 0.8) -> tuple[float, float]:
    """Leave-one-bite-out estimate of red-flag (recall, precision): fit the threshold on the
    other bites, decide on the held-out one. A fairer forecast for unseen bites than the fit."""
    decided = np.zeros(len(f.gold), bool)
    for bite in sorted(set(f.bites)):
        held = np.array([b == bite for b in f.bites])
        level = fit_red_flag(f, min_recall=min_recall, rows=np.flatnonzero(~held))
        decided[held] = f.flag_probability[held] >= level
    recall, precision, _ = _flag_metrics(decided, f.gold_flag)
    return recall, precision


def search(
    f: _Features, score: ScoreThresholds, *, min_recall: float = 0.8, base: EmbeddingThresholds = EmbeddingThresholds(),
) -> Calibration:
    """Red-flag thresholds by F1 (recall floor first), then coverage thresholds by QWK."""
    level = fit_red_flag(f, min_recall=min_recall)
    flagged = f.flag_probability >= level
    recall, precision, _ = _flag_metrics(flagged, f.gold_flag)
    best_key, best = None, None
    for c, p in itertools.product(COVERED, PARTIAL):
        if p >= c:
            continue
        pred = np.where(f.zeroed, 0, np.where(flagged, 1, _coverage_scores(f, c, p, score)))
        qwk = quadratic_weighted_kappa(list(f.gold), list(pred))
        exact = float((pred == f.gold).mean())
        key = (round(qwk, 4), round(exact, 4))
        if best_key is None or key > best_key:
            best_key = key
            best = Calibration(
                replace(base, covered=float(c), partial=float(p), red_flag=level),
                score, qwk, exact, recall, precision, len(f.gold),
            )
    return best
