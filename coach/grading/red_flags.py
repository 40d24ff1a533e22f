"""Red-flag detection for the embedding judge.

Cosine similarity to the red flag alone cannot tell the mistake from its correction:
"the cache stores the queries too" and "we never cache the queries" are both close to
"stores queries". So each answer unit is described by a few contrastive features (how
close it is to the bite's red-flag texts, how close to its correct texts, the gap, and
whether its polarity disagrees with the nearest red-flag text), and a small logistic
model turns them into a probability.

The model is fitted on the catalog's own texts: every bite's red-flag phrasings are
positives, its key points, phrasings and model-answer sentences negatives, each scored
against the bite's other texts (itself left out). No labelled answer goes into it; only
the two decision levels (sure, possible) are chosen on the dev split. `coach grader fit`
does both and writes them to the fitted artifact (coach.grading.fit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from content import Bite

FEATURES = ("red-flag sim", "correct sim", "gap", "top-3 gap", "polarity mismatch")

_NEGATION = re.compile(r"\b(not|no|never|isn't|aren't|doesn't|don't|won't|can't|cannot|nor|without)\b|n't\b", re.I)
_LEAD_VERB = re.compile(
    r"^(says|claims|states|thinks|believes|assumes|describes|treats|expects|confuses|suggests|"
    r"argues|implies|insists)\s+(that\s+)?",
    re.IGNORECASE,
)
# The red flag text often ends with the correct view ("..., rather than X"): not the mistake.
_CORRECTION_TAIL = re.compile(r",?\s+(rather than|instead of|ignoring|when in fact|whereas)\b.*$", re.IGNORECASE)
_ALTERNATIVE = re.compile(
    r",?\s+or\s+(?:that\s+|thinks\s+|says\s+|claims\s+|treats\s+|describes\s+)+", re.IGNORECASE
)


def negated(text: str) -> bool:
    return bool(_NEGATION.search(text))


def red_flag_claims(red_flag: str) -> list[str]:
    """The mistaken claims inside a red-flag description, phrased as claims."""
    text = _CORRECTION_TAIL.sub("", red_flag.strip().rstrip("."))
    parts = [_LEAD_VERB.sub("", part).strip(" ,.") for part in _ALTERNATIVE.split(_LEAD_VERB.sub("", text))]
    claims = [p for p in parts if len(p.split()) >= 3]
    whole = _LEAD_VERB.sub("", text).strip(" ,.")
    return list(dict.fromkeys([whole, *claims]))


def red_flag_texts(bite: Bite) -> list[str]:
    """The mistake: the claims in the red-flag description, then the ways candidates say it."""
    return list(dict.fromkeys([*red_flag_claims(bite.red_flag), *bite.red_flag_phrasings]))


def correct_texts(bite: Bite, split_sentences: Callable[[str], list[str]]) -> list[str]:
    """The right idea: key points, correct phrasings and the model answer's sentences."""
    return list(dict.fromkeys([*bite.point_texts, *bite.phrasings, *split_sentences(bite.model_answer)]))


def unit_features(flag_sims: np.ndarray, correct_sims: np.ndarray, flag_negated: np.ndarray,
                  unit_negated: np.ndarray) -> np.ndarray:
    """One row of FEATURES per answer unit, from (red-flag text x unit) and (correct text x unit) similarities."""
    def top3(sims: np.ndarray) -> np.ndarray:
        return np.sort(sims, axis=0)[-3:].mean(axis=0)

    flag, correct = flag_sims.max(axis=0), correct_sims.max(axis=0)
    mismatch = unit_negated != flag_negated[flag_sims.argmax(axis=0)]
    return np.stack([flag, correct, flag - correct, top3(flag_sims) - top3(correct_sims), mismatch.astype(float)], 1)


@dataclass(frozen=True)
class RedFlagModel:
    """Logistic regression over standardized FEATURES."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]

    def probability(self, features: np.ndarray) -> np.ndarray:
        z = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.weights) + self.bias)))

    @classmethod
    def fit(cls, features: np.ndarray, labels: np.ndarray, *, l2: float = 0.01, steps: int = 3000,
            rate: float = 0.5) -> "RedFlagModel":
        std = features.std(axis=0)
        mean, scale = features.mean(axis=0), np.where(std < 1e-3, 1.0, std)  # a constant feature stays 0
        z = (features - mean) / scale
        y = labels.astype(float)
        w, b = np.zeros(z.shape[1]), 0.0
        for _ in range(steps):  # plain gradient descent: five features, a few hundred rows
            p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
            w -= rate * (z.T @ (p - y) / len(y) + l2 * w)
            b -= rate * float((p - y).mean())
        return cls(tuple(round(float(v), 4) for v in w), round(b, 4),
                   tuple(round(float(v), 4) for v in mean), tuple(round(float(v), 4) for v in scale))


def training_set(embedder, bites: Iterable[Bite], split_sentences) -> tuple[np.ndarray, np.ndarray]:
    """Each bite's own texts as answer units: red-flag texts positive, correct texts negative,
    each scored with itself masked out so it cannot match itself."""
    rows, labels = [], []
    for bite in bites:
        flags, correct = red_flag_texts(bite), correct_texts(bite, split_sentences)
        flag_vectors, correct_vectors = embedder.encode(flags), embedder.encode(correct)
        flag_negated = np.array([negated(t) for t in flags])
        for is_flag, texts, vectors in ((True, flags, flag_vectors), (False, correct, correct_vectors)):
            flag_sims, correct_sims = flag_vectors @ vectors.T, correct_vectors @ vectors.T
            own = flag_sims if is_flag else correct_sims
            own[np.arange(len(texts)), np.arange(len(texts))] = -1.0
            if is_flag and len(texts) < 2:
                continue  # nothing left to match against
            rows.append(unit_features(flag_sims, correct_sims, flag_negated, np.array([negated(t) for t in texts])))
            labels += [is_flag] * len(texts)
    return np.vstack(rows), np.array(labels)
