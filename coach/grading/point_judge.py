"""The trained CPU judge: verdicts from the key-point model (coach.grading.point_model).

An answer is read in units (sentences, long sentences in word windows, and the whole answer
when it is short). Each key point, the purpose line and the red flag are
read against every unit; a point is decided by its best unit:

    wrong    if some unit says it wrongly (p_wrong >= wrong) more surely than any unit says it
    covered  if some unit makes it (p_covered >= covered)
    partial  if some unit half makes it (p_covered + p_partial >= partial)
    missing  otherwise

The mechanism ("does it explain how or why, or list terms") and the topic ("this concept or
a neighbouring one") are read on the whole answer. The evidence shown for a point is the
shortest clause or sentence of the answer that supports its verdict on its own.

`signals` runs the model; `decide` is pure, so `coach grader fit` fits the thresholds on dev
without running the model again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from coach.grading.embedding_judge import text_pieces
from coach.grading.models import KeyPointVerdict, Verdicts
from coach.grading.point_model import (
    LABELS, PointModel, flag_query, mechanism_query, point_query, topic_query,
)
from coach.grading.quotes import find_quote
from content import Bite

COVERED, PARTIAL, MISSING, WRONG = (LABELS.index(x) for x in ("covered", "partial", "missing", "wrong"))
WHOLE_ANSWER_WORDS = 180  # up to here the whole answer is also one unit (the model reads ~256 tokens)
UNITS_PER_POINT = 10  # a long answer: each claim is read against its most similar units only
MIN_CLAUSE_WORDS = 3
_CLAUSE_BREAK = re.compile(r",|;|:|\s[-–—]\s|\s(?=(?:so|because|which|but|while|whereas|and then)\s)", re.IGNORECASE)


@dataclass(frozen=True)
class PointThresholds:
    """Fitted by `coach grader fit` on dev, loaded from grader_fit.json."""

    covered: float
    partial: float
    wrong: float
    purpose: float
    red_flag_sure: float
    red_flag_possible: float
    mechanism: float  # below: a list of terms that explains nothing
    topic: float  # below: a neighbouring concept, not the one asked


@dataclass(frozen=True)
class PointSignals:
    """The model's probabilities for one answer against one bite (claims x units x labels)."""

    units: list[str]
    points: np.ndarray  # key point x unit x label (NaN where a unit was not read)
    purpose: np.ndarray  # unit x label
    flag: np.ndarray  # unit x label
    mechanism: float  # p(covered) of the mechanism claim on the whole answer
    topic: float  # p(covered) of the topic claim on the whole answer


def reading_units(answer: str, split_sentences) -> list[str]:
    """Sentences (long ones in word windows), and the whole answer when it is short: a point
    spread over two sentences is read in the whole. (Adjacent pairs as well doubled the reading
    for no gain a grading could afford.)"""
    units = text_pieces(answer, split_sentences)
    if len(answer.split()) <= WHOLE_ANSWER_WORDS and len(units) > 1:
        units.append(answer.strip())
    return units


def clauses(unit: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_BREAK.split(unit) if c and len(c.split()) >= MIN_CLAUSE_WORDS]


class PointJudge:
    def __init__(self, model: PointModel, split_sentences, thresholds: PointThresholds, embedder=None):
        self.model = model
        self._split = split_sentences
        self.thresholds = thresholds
        self._embedder = embedder  # narrows a long answer's units per claim (optional)

    # --- the model ----------------------------------------------------------------------

    def signals(self, bite: Bite, answer: str) -> PointSignals:
        units = reading_units(answer, self._split)
        claims = [point_query(p.point) for p in bite.key_points]
        chosen = self._units_per_claim(claims, units)
        pairs, where = [], []
        for c, claim in enumerate(claims):
            for u in chosen[c]:
                pairs.append((claim, units[u]))
                where.append((c, u))
        whole = answer.strip()
        # The purpose and the red flag are said in a sentence: read on the sentences only.
        sentences = units[:-1] if len(units) > 1 and units[-1] == whole else units
        for unit in sentences:
            pairs += [(point_query(bite.purpose), unit), (flag_query(bite), unit)]
        pairs += [(mechanism_query(bite), whole), (topic_query(bite), whole)]
        probs = self.model.probabilities(pairs)
        points = np.full((len(claims), len(units), len(LABELS)), np.nan, dtype=np.float32)
        for (c, u), row in zip(where, probs):
            points[c, u] = row
        rest = probs[len(where):]
        per_unit = rest[: 2 * len(sentences)].reshape(len(sentences), 2, len(LABELS))
        return PointSignals(units=units, points=points, purpose=per_unit[:, 0], flag=per_unit[:, 1],
                            mechanism=float(rest[-2, COVERED]), topic=float(rest[-1, COVERED]))

    def _units_per_claim(self, claims: list[str], units: list[str]) -> list[list[int]]:
        if len(units) <= UNITS_PER_POINT or self._embedder is None:
            return [list(range(len(units)))] * len(claims)
        similarity = self._embedder.encode(claims) @ self._embedder.encode(units).T
        return [sorted(np.argsort(-row)[:UNITS_PER_POINT].tolist()) for row in similarity]

    def explains(self, bite: Bite, answer: str) -> bool:
        """Does the answer explain a mechanism or a reason (not a list of terms)? One reading of
        the whole answer (the combined judge asks only this of a long answer)."""
        probs = self.model.probabilities([(mechanism_query(bite), answer.strip())])
        return float(probs[0, COVERED]) >= self.thresholds.mechanism

    def judge(self, bite: Bite, answer: str) -> Verdicts:
        sig = self.signals(bite, answer)
        verdicts = decide(bite, sig, self.thresholds)
        return verdicts.model_copy(update={"key_points": self._evidence(verdicts.key_points, sig, answer)})

    # --- evidence: the shortest clause that supports the verdict on its own --------------

    def _evidence(self, verdicts: list[KeyPointVerdict], sig: PointSignals, answer: str) -> list[KeyPointVerdict]:
        wanted = [i for i, v in enumerate(verdicts) if v.evidence]
        candidates = {i: sorted(set(clauses(verdicts[i].evidence)) - {verdicts[i].evidence}, key=len) for i in wanted}
        pairs = [(point_query(verdicts[i].point), c) for i in wanted for c in candidates[i]]
        probs, start, shown = self.model.probabilities(pairs), 0, list(verdicts)
        for i in wanted:
            v, rows = verdicts[i], probs[start:start + len(candidates[i])]
            start += len(candidates[i])
            best = next((c for c, row in zip(candidates[i], rows) if _supports(row, v.status, self.thresholds)),
                        v.evidence)
            shown[i] = v.model_copy(update={"evidence": find_quote(best, answer) or find_quote(v.evidence, answer)})
        return shown


def _supports(row: np.ndarray, status: str, t: PointThresholds) -> bool:
    if status == "covered":
        return row[COVERED] >= t.covered
    if status == "wrong":
        return row[WRONG] >= t.wrong
    return row[COVERED] + row[PARTIAL] >= t.partial


def point_status(rows: np.ndarray, t: PointThresholds) -> tuple[str, int | None]:
    """A point's status and the unit that decided it, from its units' probabilities (rows
    ordered shortest unit first)."""
    read = ~np.isnan(rows[:, 0])
    if not read.any():
        return "missing", None
    rows = np.where(read[:, None], rows, 0.0)
    covered, wrong = rows[:, COVERED], rows[:, WRONG]
    loose = rows[:, COVERED] + rows[:, PARTIAL]
    if wrong.max() >= t.wrong and wrong.max() > covered.max():
        return "wrong", int(np.argmax(wrong))
    # Units come shortest first: the first that makes the point is the quote to show.
    if covered.max() >= t.covered:
        return "covered", int(np.flatnonzero(covered >= t.covered)[0])
    if loose.max() >= t.partial:
        return "partial", int(np.flatnonzero(loose >= t.partial)[0])
    return "missing", None


def decide(bite: Bite, sig: PointSignals, t: PointThresholds) -> Verdicts:
    """Verdicts from the model's probabilities: pure, so thresholds are fitted without the model."""
    order = np.argsort([len(u) for u in sig.units], kind="stable")  # units by length, shortest first
    verdicts = []
    for point, rows in zip(bite.key_points, sig.points):
        status, unit = point_status(rows[order], t)
        evidence = sig.units[int(order[unit])] if unit is not None else None
        verdicts.append(KeyPointVerdict(point=point.point, kind=point.kind, status=status, evidence=evidence))
    flag = float(sig.flag[:, COVERED].max()) if len(sig.flag) else 0.0
    purpose = float((sig.purpose[:, COVERED] + sig.purpose[:, PARTIAL]).max()) if len(sig.purpose) else 0.0
    return Verdicts(
        key_points=verdicts,
        red_flag=flag >= t.red_flag_sure,
        red_flag_possible=t.red_flag_possible <= flag < t.red_flag_sure,
        purpose=purpose >= t.purpose,
        injection=False,  # the injection net decides (coach.grading.injection); the pipeline combines
        keyword_soup=sig.mechanism < t.mechanism,
        off_topic=sig.topic < t.topic,
    )
