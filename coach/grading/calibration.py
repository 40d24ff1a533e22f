"""Fit the grader's numbers on the dev split (never on test); `coach grader fit` runs it.

1. The score rule (`fit_score_rule`): the cut-offs under which the score function, fed
   the *gold* key-point verdicts, best reproduces the *gold* grades.
2. The red-flag levels: `red_flag_sure` is the lowest contrast that at most
   `SURE_FALSE_ALARM` of dev answers without the mistake reach, plus a safety margin
   (`SURE_MARGIN`; a right answer told it made the interview-ending mistake is the worst
   outcome); `red_flag_possible` the level with the best F1 below it.
3. The purpose level: the one whose verdicts agree best with the gold purpose labels
   (chosen for kappa it would make the verdict wrong on most answers: it only moves a
   score when nothing else was credited).
4. The key-point thresholds (covered, partial), for kappa first and the smallest mean
   offset second, with 1-3 fixed.

Similarities are computed once per answer; each threshold combination is then scored
with array arithmetic. `cross_validate` repeats 2-4 with whole bites held out, a fairer
forecast for bites the fit never saw.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from coach.grading import injection
from coach.grading.embedding_judge import EmbeddingJudge, EmbeddingThresholds
from coach.grading.eval import quadratic_weighted_kappa
from coach.grading.scoring import DESIGN_PRIOR, ScoreRule, score_answer

SCORE_GRID = {
    "depth_weight": (0.0, 0.125, 0.25, 0.375, 0.5),
    "lands": (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0),
    "solid": (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75),
    "gist": (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45),
}
COVERED = np.round(np.arange(0.35, 0.851, 0.025), 3)
PARTIAL = np.round(np.arange(0.25, 0.801, 0.025), 3)
PURPOSE = np.round(np.arange(0.20, 0.851, 0.025), 3)
FLAG_LEVELS = np.round(np.arange(-0.20, 0.601, 0.01), 3)  # the red-flag contrast
SURE_FALSE_ALARM = 0.01  # share of dev answers without the mistake that may be told they made it
# Set by hand, not fitted: dev's ~150 answers without the mistake bound the tail of the
# contrast poorly. On two retired blind sets (test v3, v4: other writers, other bites) such
# answers reached up to 0.085 above the level fitted on dev, so a sure flag starts this far
# above it; between the two levels the flag is shown as "this may be ...", without the cap.
SURE_MARGIN = 0.07
NEVER = 1.01  # a level nothing reaches (recall lies in [-1, 1], so the contrast does too)


def graded(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r.get("bite_id") is not None and r.get("score") is not None]


def score_key(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    """Kappa first, then the smallest mean offset, then exact agreement."""
    qwk = quadratic_weighted_kappa(list(gold), list(pred))
    return round(qwk, 4), -round(abs(float((pred - gold).mean())), 3), round(float((pred == gold).mean()), 4)


def gold_scores(rows: list[dict], catalog, rule: ScoreRule) -> np.ndarray:
    """The score function applied to each graded row's gold verdicts (purpose, red flag,
    injection, mechanism and topic included): what a judge that agreed with the labels on every
    verdict would score."""
    return np.array([
        score_answer(r["key_points"], [p.kind for p in catalog.bites[r["bite_id"]].key_points],
                     purpose=r.get("purpose", False), red_flag=r["red_flag"], injection=r["injection"],
                     keyword_soup=not r.get("mechanism", True), off_topic=not r.get("on_topic", True), rule=rule)
        for r in graded(rows)
    ])


def fit_score_rule(rows: list[dict], catalog) -> tuple[ScoreRule, dict]:
    """The rule under which score_answer(gold verdicts) best matches the gold grades."""
    rows = graded(rows)
    gold = np.array([r["score"] for r in rows])
    best, best_key = DESIGN_PRIOR, None
    for values in itertools.product(*SCORE_GRID.values()):
        fields = dict(zip(SCORE_GRID, values))
        if not fields["gist"] < fields["solid"] < fields["lands"]:
            continue
        rule = ScoreRule(**fields)
        pred = gold_scores(rows, catalog, rule)
        distance = sum(abs(getattr(rule, f) - getattr(DESIGN_PRIOR, f)) for f in SCORE_GRID)
        key = (*score_key(pred, gold), -round(distance, 4))
        if best_key is None or key > best_key:
            best, best_key = rule, key
    return best, {"qwk": best_key[0], "mean_offset": -best_key[1], "exact": best_key[2], "n": len(rows)}


@dataclass
class Features:
    """Per dev answer, what the thresholds act on."""

    point_best: list[np.ndarray]  # each key point's token-level recall in the answer
    kinds: list[list[str]]
    purpose_best: np.ndarray
    gold_purpose: np.ndarray
    flag_score: np.ndarray  # the red-flag contrast (mistaken minus correct recall)
    zeroed: np.ndarray  # an attempt to instruct the grader: 0 whatever else
    gold: np.ndarray
    gold_flag: np.ndarray
    bites: list[str]

    def subset(self, index: np.ndarray) -> "Features":
        return Features([self.point_best[i] for i in index], [self.kinds[i] for i in index],
                        self.purpose_best[index], self.gold_purpose[index], self.flag_score[index], self.zeroed[index],
                        self.gold[index], self.gold_flag[index], [self.bites[i] for i in index])


def features(judge: EmbeddingJudge, catalog, rows: list[dict]) -> Features:
    rows = graded(rows)
    f = Features([], [], np.zeros(len(rows)), np.array([bool(r.get("purpose")) for r in rows]), np.zeros(len(rows)),
                 np.zeros(len(rows), bool), np.array([r["score"] for r in rows]),
                 np.array([bool(r["red_flag"]) for r in rows]), [r["bite_id"] for r in rows])
    for i, row in enumerate(rows):
        bite = catalog.bites[row["bite_id"]]
        sims = judge.similarities(bite, row["answer"])
        f.point_best.append(sims.point_recall)
        f.kinds.append([p.kind for p in bite.key_points])
        f.purpose_best[i] = sims.purpose_recall
        f.flag_score[i] = sims.red_flag_contrast
        f.zeroed[i] = injection.without_model(injection.check(row["answer"]), sims.near_injection_exemplar(), sims.read_attempt)
    return f


def _flag_f1(flagged: np.ndarray, gold: np.ndarray) -> float:
    tp = int((flagged & gold).sum())
    if not tp:
        return 0.0
    recall, precision = tp / int(gold.sum()), tp / int(flagged.sum())
    return 2 * recall * precision / (recall + precision)


def fit_red_flag_levels(f: Features) -> tuple[float, float]:
    """(sure, possible) contrast levels; see the module docstring."""
    clean = ~f.gold_flag
    sure = next((float(level) + SURE_MARGIN for level in FLAG_LEVELS
                 if (f.flag_score[clean] >= level).mean() <= SURE_FALSE_ALARM), NEVER)
    below = [level for level in FLAG_LEVELS if level < sure] or [sure]
    possible = max(below, key=lambda level: (round(_flag_f1(f.flag_score >= level, f.gold_flag), 4), level))
    return sure, float(possible)


def predict(f: Features, t: EmbeddingThresholds, rule: ScoreRule) -> np.ndarray:
    scores = []
    for i, best in enumerate(f.point_best):
        statuses = np.where(best >= t.covered, "covered", np.where(best >= t.partial, "partial", "missing"))
        scores.append(score_answer(
            list(statuses), f.kinds[i], purpose=bool(f.purpose_best[i] >= t.purpose),
            red_flag=bool(f.flag_score[i] >= t.red_flag_sure), injection=bool(f.zeroed[i]),
            keyword_soup=False, rule=rule,
        ))
    return np.array(scores)


def fit_purpose_level(f: Features) -> float:
    """The level whose purpose verdicts agree best with the gold ones (ties: the middle one)."""
    agreement = [round(float(((f.purpose_best >= level) == f.gold_purpose).mean()), 4) for level in PURPOSE]
    tied = [float(level) for level, a in zip(PURPOSE, agreement) if a == max(agreement)]
    return tied[len(tied) // 2]


def fit_thresholds(f: Features, rule: ScoreRule) -> EmbeddingThresholds:
    sure, possible = fit_red_flag_levels(f)
    purpose = fit_purpose_level(f)
    best, best_key = None, None
    for covered, partial in itertools.product(COVERED, PARTIAL):
        if partial >= covered:
            continue
        t = EmbeddingThresholds(float(covered), float(partial), purpose, sure, possible)
        key = score_key(predict(f, t, rule), f.gold)
        if best_key is None or key > best_key:
            best, best_key = t, key
    return best


def cross_validate(f: Features, rule: ScoreRule, folds: int = 5) -> dict:
    """Fit the thresholds with whole bites held out; score the held-out answers."""
    bites = sorted(set(f.bites))
    pred = np.zeros(len(f.gold), int)
    for fold in range(folds):
        held_bites = set(bites[fold::folds])
        held = np.array([b in held_bites for b in f.bites])
        t = fit_thresholds(f.subset(np.flatnonzero(~held)), rule)
        pred[held] = predict(f.subset(np.flatnonzero(held)), t, rule)
    qwk, offset, exact = score_key(pred, f.gold)
    return {"qwk": qwk, "mean_offset": round(float((pred - f.gold).mean()), 3), "exact": exact}


def summary(f: Features, t: EmbeddingThresholds, rule: ScoreRule) -> dict:
    pred = predict(f, t, rule)
    clean = ~f.gold_flag
    sure = f.flag_score >= t.red_flag_sure
    return {
        "n": int(len(f.gold)),
        "qwk": round(quadratic_weighted_kappa(list(f.gold), list(pred)), 4),
        "exact": round(float((pred == f.gold).mean()), 4),
        "mean_offset": round(float((pred - f.gold).mean()), 3),
        "red_flag_sure_on_clean": round(float(sure[clean].mean()), 4) if clean.any() else None,
        "red_flag_possible_recall": round(float((f.flag_score[f.gold_flag] >= t.red_flag_possible).mean()), 3)
        if f.gold_flag.any() else None,
        "purpose_agreement": round(float(((f.purpose_best >= t.purpose) == f.gold_purpose).mean()), 4),
    }
