"""Fit the trained judge's thresholds on the dev split (never on test); `coach grader fit`
runs it when the key-point model is present.

The model's probabilities are computed once per dev answer (`PointJudge.signals`); every
threshold is then chosen with `point_judge.decide` and the shipped score function:

1. `red_flag_sure`: the lowest level that at most `SURE_FALSE_ALARM` of dev answers without
   the mistake reach, raised to `SURE_FLOOR` (a right answer told it made the
   interview-ending mistake is the worst outcome); `red_flag_possible` the best-F1 level below.
2. `covered`, `partial`, `wrong`: the per-point verdicts that agree best with the gold
   key-point labels (quadratic-weighted over missing < partial < covered, `wrong` apart).
3. `purpose`: the level that agrees best with the gold purpose labels.
4. `mechanism` and `topic`: the levels under which the final scores best match the gold
   grades (kappa, then the smallest offset), each capped so that at most
   `ZERO_FALSE_ALARM` of dev's strong answers (gold 3-4) are zeroed by it: a short strong
   answer must not be taken for a list.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from coach.grading.eval import quadratic_weighted_kappa
from coach.grading.point_judge import COVERED, PARTIAL, PointJudge, PointSignals, PointThresholds, WRONG, decide
from coach.grading.scoring import ScoreRule, score_verdicts

SURE_FALSE_ALARM = 0.01
SURE_FLOOR = 0.5  # set by hand: below an even chance, the model is not sure
ZERO_FALSE_ALARM = 0.02
LEVELS = np.round(np.arange(0.05, 0.951, 0.025), 3)


@dataclass
class DevSignals:
    rows: list[dict]
    bites: list
    signals: list[PointSignals]

    def __post_init__(self) -> None:
        """Each (answer, key point)'s best probabilities over its units, flattened: the point
        thresholds are then fitted with array arithmetic."""
        cov, loose, wrong, gold, answer = [], [], [], [], []
        for i, (sig, row) in enumerate(zip(self.signals, self.rows)):
            for rows, status in zip(sig.points, row["key_points"]):
                read = rows[~np.isnan(rows[:, 0])] if len(rows) else rows
                cov.append(float(read[:, COVERED].max()) if len(read) else 0.0)
                loose.append(float((read[:, COVERED] + read[:, PARTIAL]).max()) if len(read) else 0.0)
                wrong.append(float(read[:, WRONG].max()) if len(read) else 0.0)
                gold.append(status)
                answer.append(i)
        self.cov, self.loose, self.wrong = np.array(cov), np.array(loose), np.array(wrong)
        self.gold_status, self.answer_of = np.array(gold), np.array(answer, int)
        self.gold_code = np.array([CODES.index(s) for s in gold], int)


def dev_signals(judge: PointJudge, catalog, rows: list[dict]) -> DevSignals:
    rows = [r for r in rows if r.get("bite_id") is not None and r.get("score") is not None]
    bites = [catalog.bites[r["bite_id"]] for r in rows]
    return DevSignals(rows, bites, [judge.signals(b, r["answer"]) for b, r in zip(bites, rows)])


def _flag_best(sig: PointSignals) -> float:
    return float(sig.flag[:, COVERED].max()) if len(sig.flag) else 0.0


def _f1(pred: np.ndarray, gold: np.ndarray) -> float:
    tp = int((pred & gold).sum())
    return 0.0 if not tp else 2 * tp / (int(pred.sum()) + int(gold.sum()))


def fit_red_flag(dev: DevSignals) -> tuple[float, float]:
    best = np.array([_flag_best(s) for s in dev.signals])
    gold = np.array([bool(r["red_flag"]) for r in dev.rows])
    clean = best[~gold]
    sure = next((float(x) for x in LEVELS if (clean >= x).mean() <= SURE_FALSE_ALARM), 1.01)
    sure = max(sure, SURE_FLOOR)
    below = [float(x) for x in LEVELS if x < sure] or [sure]
    possible = max(below, key=lambda x: (round(_f1(best >= x, gold), 4), x))
    return sure, possible


CODES = ("missing", "partial", "covered", "wrong")  # the first three in order, `wrong` apart


def status_codes_of(cov: np.ndarray, loose: np.ndarray, wrong: np.ndarray, t) -> np.ndarray:
    """`point_judge.point_status` for many points at once, as CODES indexes, from each point's
    best p(covered), p(covered) + p(partial) and p(wrong) over its units (all the rule reads).
    `t` has `covered`, `partial` and `wrong` levels (PointThresholds or the follow-up reader's)."""
    said_wrongly = (wrong >= t.wrong) & (wrong > cov)
    return np.where(said_wrongly, 3, np.where(cov >= t.covered, 2, np.where(loose >= t.partial, 1, 0)))


def status_codes(dev: DevSignals, t: PointThresholds) -> np.ndarray:
    """`point_judge.point_status` over every (answer, point) of dev at once, as CODES indexes."""
    return status_codes_of(dev.cov, dev.loose, dev.wrong, t)


def _point_agreement(dev: DevSignals, t: PointThresholds) -> float:
    """Agreement of the model's per-point verdicts with the gold labels: 1 for the same
    status, 0.5 a step apart on missing < partial < covered, 0 otherwise (wrong is its own)."""
    got, gold = status_codes(dev, t), dev.gold_code
    half = (np.abs(got - gold) == 1) & (got < 3) & (gold < 3)
    return float(((got == gold) + 0.5 * half).mean()) if len(gold) else 0.0


def predict(dev: DevSignals, t: PointThresholds, rule: ScoreRule) -> np.ndarray:
    return np.array([score_verdicts(decide(b, s, t), [p.kind for p in b.key_points], rule)
                     for b, s in zip(dev.bites, dev.signals)])


def _key(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float]:
    return round(quadratic_weighted_kappa(list(gold), list(pred)), 4), -round(abs(float((pred - gold).mean())), 3)


def fit(dev: DevSignals, rule: ScoreRule) -> PointThresholds:
    sure, possible = fit_red_flag(dev)
    base = PointThresholds(covered=0.5, partial=0.5, wrong=0.5, purpose=0.5, red_flag_sure=sure,
                           red_flag_possible=possible, mechanism=0.0, topic=0.0)
    # 2. the point verdicts, on the gold key-point labels
    best, best_key = base, -1.0
    for covered, partial, wrong in itertools.product(LEVELS, LEVELS, LEVELS):
        if partial > covered:
            continue
        t = replace(base, covered=float(covered), partial=float(partial), wrong=float(wrong))
        key = round(_point_agreement(dev, t), 4)
        if key > best_key:
            best, best_key = t, key
    # 3. purpose, on the gold purpose labels
    purpose_best = np.array([float((s.purpose[:, COVERED] + s.purpose[:, PARTIAL]).max()) for s in dev.signals])
    gold_purpose = np.array([bool(r.get("purpose")) for r in dev.rows])
    agreement = [((purpose_best >= x) == gold_purpose).mean() for x in LEVELS]
    best = replace(best, purpose=float(LEVELS[int(np.argmax(agreement))]))
    # 4. mechanism and topic, on the final scores, without zeroing strong answers
    gold = np.array([r["score"] for r in dev.rows])
    strong = gold >= 3
    mech = np.array([s.mechanism for s in dev.signals])
    topic = np.array([s.topic for s in dev.signals])
    scored = predict(dev, best, rule)  # neither zeroes anything at 0
    mech_levels = [0.0] + [float(x) for x in LEVELS if (mech[strong] < x).mean() <= ZERO_FALSE_ALARM]
    topic_levels = [0.0] + [float(x) for x in LEVELS if (topic[strong] < x).mean() <= ZERO_FALSE_ALARM]
    best_key, chosen = None, best
    for m, tp in itertools.product(mech_levels, topic_levels):
        pred = np.where((mech < m) | (topic < tp), 0, scored)
        key = _key(pred, gold)
        if best_key is None or key > best_key:
            chosen, best_key = replace(best, mechanism=m, topic=tp), key
    return chosen


def summary(dev: DevSignals, t: PointThresholds, rule: ScoreRule) -> dict:
    pred = predict(dev, t, rule)
    gold = np.array([r["score"] for r in dev.rows])
    gold_flag = np.array([bool(r["red_flag"]) for r in dev.rows])
    flag = np.array([_flag_best(s) for s in dev.signals])
    return {
        "n": int(len(gold)),
        "qwk": round(quadratic_weighted_kappa(list(gold), list(pred)), 4),
        "exact": round(float((pred == gold).mean()), 4),
        "mean_offset": round(float((pred - gold).mean()), 3),
        "point_agreement": round(_point_agreement(dev, t), 4),
        "red_flag_sure_on_clean": round(float((flag[~gold_flag] >= t.red_flag_sure).mean()), 4),
        "red_flag_sure_recall": round(float((flag[gold_flag] >= t.red_flag_sure).mean()), 4) if gold_flag.any() else None,
    }


def cross_validate(dev: DevSignals, rule: ScoreRule, folds: int = 5) -> dict:
    """The thresholds fitted with whole bites held out, scored on the held-out answers."""
    bites = sorted({b.id for b in dev.bites})
    pred = np.zeros(len(dev.rows), int)
    for fold in range(folds):
        held_ids = set(bites[fold::folds])
        held = [i for i, b in enumerate(dev.bites) if b.id in held_ids]
        kept = [i for i, b in enumerate(dev.bites) if b.id not in held_ids]
        t = fit(_subset(dev, kept), rule)
        pred[held] = predict(_subset(dev, held), t, rule)
    gold = np.array([r["score"] for r in dev.rows])
    return {"qwk": round(quadratic_weighted_kappa(list(gold), list(pred)), 4),
            "mean_offset": round(float((pred - gold).mean()), 3)}


def _subset(dev: DevSignals, index: list[int]) -> DevSignals:
    return DevSignals([dev.rows[i] for i in index], [dev.bites[i] for i in index], [dev.signals[i] for i in index])
