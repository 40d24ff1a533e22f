"""The combined CPU judge (`CPU_JUDGE=combined`, `grader: "combined"`): the embedding judge's
verdicts, with the trained key-point model's readings where they measured better on the blind
dev split (issue #27, docs/grading.md):

- **Mechanism, on every answer.** The trained model reads whether the answer explains how or
  why anything works; a list of terms that explains nothing scores 0 (`keyword_soup`) when
  either judge says so. One model call on the whole answer.
- **Key points, on short answers only.** On an answer of at most `short_words` words (fitted on
  dev) a point the trained model reads as covered is covered, with its quote. The embedding
  judge's token matching misses points a short answer makes in a few words of its own; on long
  answers the trained model's verdicts are worse than the embedding judge's (they read units it
  was not trained on), so there the embedding judge decides alone.

Everything else (the red flag, the purpose, the topic, the injection net) is the embedding
judge's. `combine` is pure, so `fit_short_words` chooses the cut-off on dev without the model.
"""

from __future__ import annotations

import asyncio

import numpy as np

from coach.grading.models import Verdicts
from coach.grading.scoring import score_answer

SHORT_WORD_LEVELS = (0, 40, 50, 60, 70, 80, 90, 100, 120, 150, 200)  # 0: never read the points


def combine(base: Verdicts, reading: Verdicts | None, *, explains: bool) -> Verdicts:
    """`base`: the embedding judge's verdicts; `reading`: the trained judge's on a short answer
    (None on a long one); `explains`: the trained model reads a mechanism in the answer."""
    points = list(base.key_points)
    if reading is not None:
        points = [mine if mine.status == "covered" or theirs.status != "covered" else theirs
                  for mine, theirs in zip(base.key_points, reading.key_points)]
    return base.model_copy(update={"key_points": points, "keyword_soup": base.keyword_soup or not explains})


async def verdicts(embedding_judge, point_judge, bite, text: str, net, short_words: int) -> Verdicts:
    base = await asyncio.to_thread(embedding_judge.judge, bite, text, net)
    if len(text.split()) <= short_words:
        reading = await point_judge.verdicts(bite, text)
        return combine(base, reading, explains=not reading.keyword_soup)
    return combine(base, None, explains=await point_judge.explains(bite, text))


# --- fitting on dev ---------------------------------------------------------------------------


def predict(emb_statuses: list[list[str]], trained_statuses: list[list[str]], words: np.ndarray,
            explains: np.ndarray, kinds: list[list[str]], other: list[dict], short_words: int, rule) -> np.ndarray:
    """Scores of the combined judge for each dev answer, from both judges' per-point statuses
    (`other`: each answer's purpose, red flag and injection, the embedding judge's)."""
    scores = []
    for i, mine in enumerate(emb_statuses):
        statuses = mine
        if words[i] <= short_words:  # as `combine`: a point the trained model reads as covered is covered
            statuses = ["covered" if theirs == "covered" else m for m, theirs in zip(mine, trained_statuses[i])]
        scores.append(score_answer(statuses, kinds[i], keyword_soup=not explains[i], rule=rule, **other[i]))
    return np.array(scores)


def dev_inputs(features, thresholds, signals, point_thresholds, rule) -> dict:
    """`predict`'s inputs on dev, from the embedding judge's features (coach.grading.calibration)
    and the trained model's signals (coach.grading.point_calibration) on the same answers."""
    from coach.grading.point_calibration import CODES, status_codes

    assert features.bites == [b.id for b in signals.bites], "both judges read the same dev answers"
    codes = status_codes(signals, point_thresholds)
    trained = [[CODES[c] for c in codes[signals.answer_of == i]] for i in range(len(signals.rows))]
    t = thresholds
    mine = [["covered" if x >= t.covered else "partial" if x >= t.partial else "missing" for x in best]
            for best in features.point_best]
    other = [{"purpose": bool(features.purpose_best[i] >= t.purpose), "red_flag": bool(features.flag_score[i] >= t.red_flag_sure),
              "injection": bool(features.zeroed[i])} for i in range(len(mine))]
    return {"emb_statuses": mine, "trained_statuses": trained,
            "words": np.array([len(r["answer"].split()) for r in signals.rows]),
            "explains": np.array([s.mechanism >= point_thresholds.mechanism for s in signals.signals]),
            "kinds": features.kinds, "other": other, "rule": rule}


def fit_short_words(args: dict, gold: np.ndarray, key) -> int:
    """The cut-off whose combined scores best match the gold grades on dev (`key` ranks them)."""
    best = max(SHORT_WORD_LEVELS, key=lambda level: (key(predict(**args, short_words=level), gold), -level))
    return int(best)


def cross_validate(args: dict, gold: np.ndarray, bites: list[str], key, folds: int = 5) -> np.ndarray:
    """Combined scores with the cut-off fitted with whole bites held out."""
    names = sorted(set(bites))
    pred = np.zeros(len(gold), int)
    for fold in range(folds):
        held = set(names[fold::folds])
        kept = [i for i, b in enumerate(bites) if b not in held]
        out = [i for i, b in enumerate(bites) if b in held]
        level = fit_short_words(_take(args, kept), gold[kept], key)
        pred[out] = predict(**_take(args, out), short_words=level)
    return pred


def _take(args: dict, index: list[int]) -> dict:
    return {name: (value[index] if isinstance(value, np.ndarray) else [value[i] for i in index]) if name != "rule"
            else value for name, value in args.items()}
