"""The score, computed in code from verdicts (docs/grading.md; the scale is the brief's).

The LLM or embedding judge decides each key point, whether the answer states the
purpose, and whether it makes the red flag; neither picks the number.

The scale is anchored on the interviewer, so the core points carry the grade: an
answer that makes every core point clearly lands (4) even if it skips the depth
points. Depth points can make up for a loose core point, by `depth_weight`.

    quality = credit(core points) + depth_weight * credit(depth points)
    4 if quality >= lands, 3 if >= solid, 2 if >= gist,
    1 if any credit at all or the purpose is stated, else 0
    a core point stated wrongly: at most 1; a depth point stated wrongly: at most 3;
    the red flag (near-certain): 1;
    an attempt to instruct the grader, a list of terms that explains no mechanism, or a
    neighbouring concept explained instead of this one: 0

The four numbers are fitted by `coach grader fit` on the dev split's gold labels
(coach.grading.fit) and shipped in the fitted artifact, never pasted here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from coach.grading.models import Status

CREDIT = {"covered": 1.0, "partial": 0.5, "missing": 0.0, "wrong": 0.0}
# The scale's caps (../shared/DESIGN.md): a wrong central claim is the scale's 1, a wrong detail
# leaves a solid answer with a gap an interviewer would probe (3).
CORE_WRONG_CAP = 1
DEPTH_WRONG_CAP = 3


@dataclass(frozen=True)
class ScoreRule:
    depth_weight: float
    lands: float
    solid: float
    gist: float

    def __post_init__(self) -> None:
        if not 0 < self.gist < self.solid < self.lands:
            raise ValueError(f"cut-offs must rise: gist {self.gist} < solid {self.solid} < lands {self.lands}")


# The design's starting point (docs/grading.md): all core points -> 4, most -> 3, about half -> 2.
# The fit searches around it and prefers it on ties; the shipped numbers come from the artifact.
DESIGN_PRIOR = ScoreRule(depth_weight=0.25, lands=0.9, solid=0.65, gist=0.35)


def credit(statuses: Iterable[Status]) -> float:
    statuses = list(statuses)
    return sum(CREDIT[s] for s in statuses) / len(statuses) if statuses else 0.0


def quality(statuses: Sequence[Status], kinds: Sequence[str], depth_weight: float) -> float:
    core = [s for s, k in zip(statuses, kinds) if k == "core"]
    depth = [s for s, k in zip(statuses, kinds) if k != "core"]
    return credit(core) + depth_weight * credit(depth)


def score_answer(
    statuses: Sequence[Status],
    kinds: Sequence[str],
    *,
    purpose: bool,
    red_flag: bool,
    injection: bool,
    keyword_soup: bool,
    rule: ScoreRule,
    off_topic: bool = False,
) -> int:
    if injection or keyword_soup or off_topic:
        return 0
    if red_flag:
        return 1
    q = quality(statuses, kinds, rule.depth_weight)
    if q >= rule.lands:
        s = 4
    elif q >= rule.solid:
        s = 3
    elif q >= rule.gist:
        s = 2
    elif q > 0 or purpose:
        s = 1
    else:
        s = 0
    wrong_kinds = {k for status, k in zip(statuses, kinds) if status == "wrong"}
    if "core" in wrong_kinds:
        s = min(s, CORE_WRONG_CAP)
    elif wrong_kinds:
        s = min(s, DEPTH_WRONG_CAP)
    return s


def score_verdicts(verdicts, kinds: Sequence[str], rule: ScoreRule) -> int:
    """`score_answer` on a judge's `Verdicts` (coach.grading.models)."""
    return score_answer(
        [v.status for v in verdicts.key_points], kinds, purpose=verdicts.purpose, red_flag=verdicts.red_flag,
        injection=verdicts.injection, keyword_soup=verdicts.keyword_soup, off_topic=verdicts.off_topic, rule=rule,
    )
