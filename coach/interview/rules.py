"""The interview's rules, pure: which point the interviewer probes next, what a turn shows,
what each key point came to, the overall signal and the coaching lines. `docs/grading.md`
states the signal rule in words; tests/coach/interview/test_rules.py holds it to that."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from content import Bite

MAX_FOLLOW_UPS = 3  # per question: the rest of a real interview's probing is the next question
MAX_QUESTIONS = 3
# Follow-up XP per interview (the first answers earn what an explanation earns): a point that
# lands when asked earns a little, and "I don't know" earns nothing, so nothing can be farmed.
FOLLOW_UP_XP = {"covered": 5, "partial": 2}
FOLLOW_UP_XP_CAP = 30

Signal = Literal["strong_yes", "lean_yes", "lean_no", "strong_no"]
SIGNAL_WORDS: dict[str, str] = {"strong_yes": "Strong yes", "lean_yes": "Lean yes", "lean_no": "Lean no",
                                "strong_no": "Strong no"}
PointOutcome = Literal["landed", "rescued", "partly", "missed", "wrong"]
# An interviewer's credit for a key point: made unprompted beats made when asked.
CREDIT: dict[str, float] = {"landed": 1.0, "rescued": 0.75, "partly": 0.5, "missed": 0.0, "wrong": 0.0}
# The signal's levels, chosen on the first set of scripted interviews (docs/grading.md, "The
# interview"): interviewers gave "strong yes" only when every core point came unprompted, and
# marked down any wrong claim, even one later put right or about a depth point.
STRONG_YES_UNPROMPTED = 1.0  # share of core points made at the first ask
LEAN_YES_CORE = 0.8  # mean core credit over the questions answered
LEAN_NO_CORE = 0.35
FATAL_LEAN_NO_CORE = 0.6  # with a red flag or a wrong claim: lean no from here, else strong no
# The order in which a weak point is probed: a wrong or missing core point first, then depth.
_PROBE_ORDER = {("core", "wrong"): 0, ("core", "missing"): 1, ("core", "partial"): 2,
                ("depth", "wrong"): 3, ("depth", "missing"): 4, ("depth", "partial"): 5}
_RANK = {"wrong": 0, "missing": 1, "partial": 2, "covered": 3}


@dataclass(frozen=True)
class Turn:
    """One answered (or passed) turn. `point` is None for a question's first answer; its
    `statuses` then hold every key point's verdict, a follow-up's the one point's."""

    n: int  # the turn's number in the interview, from 0
    question: int  # index into the interview's bites
    point: int | None
    asked: str
    answer: str | None  # kept only where the member allows it
    passed: bool  # "I don't know"
    statuses: tuple[str, ...]
    score: int | None = None  # a first answer's grade, 0-4
    red_flag: bool = False
    injection: bool = False
    grader: str = ""

    def to_json(self) -> dict:
        return asdict(self) | {"statuses": list(self.statuses)}

    @classmethod
    def from_json(cls, data: dict) -> "Turn":
        return cls(**{**data, "statuses": tuple(data.get("statuses", ()))})


def follow_up_point(bite: Bite, statuses: list[str], asked: list[int]) -> int | None:
    """The key point the interviewer probes next, or None when the question is done: the
    weakest point that matters most, never one asked already, at most `MAX_FOLLOW_UPS`; once
    every core point is covered (at once or rescued), at most one depth point is probed."""
    if len(asked) >= MAX_FOLLOW_UPS:
        return None
    kinds = [p.kind for p in bite.key_points]
    core_covered = all(s == "covered" for s, kind in zip(statuses, kinds) if kind == "core")
    if core_covered and any(kinds[i] == "depth" for i in asked):
        return None
    candidates = [
        (_PROBE_ORDER[(kind, status)], i) for i, (status, kind) in enumerate(zip(statuses, kinds))
        if status != "covered" and i not in asked and (kind == "depth" or not core_covered)
    ]
    return min(candidates)[1] if candidates else None


def current_statuses(bite: Bite, turns: list[Turn], question: int) -> list[str]:
    """Every key point's status after the question's turns: a follow-up's verdict replaces the
    first one where it is better (a point stated wrongly and then right counts as right)."""
    statuses = ["missing"] * len(bite.key_points)
    for turn in turns:
        if turn.question != question:
            continue
        if turn.point is None:
            statuses = list(turn.statuses) or statuses
        elif turn.statuses and _RANK[turn.statuses[0]] > _RANK[statuses[turn.point]]:
            statuses[turn.point] = turn.statuses[0]
    return statuses


def turn_line(status: str) -> str:
    """The one line a member sees between turns: an interviewer keeps the detail for later."""
    return {"covered": "landed", "partial": "partly landed"}.get(status, "missed")


def first_answer_status(score: int) -> str:
    return "covered" if score >= 3 else "partial" if score == 2 else "missing"


@dataclass(frozen=True)
class QuestionCard:
    """What one question came to, for the scorecard."""

    bite_id: str
    title: str
    score: int | None  # the first answer's grade; None if never answered
    outcomes: tuple[tuple[str, str, PointOutcome], ...]  # (point, kind, outcome) per key point
    red_flag: bool
    follow_ups: int
    stated_wrongly: bool = False  # some point was stated wrongly at some turn, even if put right later

    def by_outcome(self, outcome: str) -> list[str]:
        return [point for point, _, got in self.outcomes if got == outcome]

    @property
    def core_credit(self) -> float:
        core = [CREDIT[got] for _, kind, got in self.outcomes if kind == "core"]
        return sum(core) / len(core) if core else 0.0

    @property
    def core_unprompted(self) -> float:
        core = [got == "landed" for _, kind, got in self.outcomes if kind == "core"]
        return sum(core) / len(core) if core else 0.0


def question_card(bite: Bite, turns: list[Turn], question: int) -> QuestionCard:
    first = next((t for t in turns if t.question == question and t.point is None), None)
    initial = list(first.statuses) if first is not None and first.statuses else ["missing"] * len(bite.key_points)
    final = current_statuses(bite, turns, question)
    outcomes = []
    for point, before, after in zip(bite.key_points, initial, final):
        if before == "covered":
            got = "landed"
        elif after == "covered":
            got = "rescued"
        elif after == "partial":
            got = "partly"
        elif after == "wrong":
            got = "wrong"
        else:
            got = "missed"
        outcomes.append((point.point, point.kind, got))
    asked = [t for t in turns if t.question == question]
    return QuestionCard(
        bite_id=bite.id, title=bite.title, score=first.score if first is not None else None,
        outcomes=tuple(outcomes), red_flag=any(t.red_flag for t in asked),
        follow_ups=sum(1 for t in asked if t.point is not None),
        stated_wrongly=any("wrong" in t.statuses for t in asked),
    )


def signal(cards: list[QuestionCard]) -> Signal | None:
    """The interviewer's four steps, from the questions answered (None: nothing answered).

    core = the mean over questions of the core points' credit (landed 1, rescued on follow-up
    0.75, partly 0.5, missed or wrong 0); unprompted = the share of core points made at the
    first ask. A sure red flag (the bite's listed mistake) or any point stated wrongly at any
    turn (core or depth, even if put right later) caps the signal at lean no, and at strong no
    when core < 0.6. Otherwise:
      strong yes: every core point made at the first ask · lean yes: core >= 0.8
      lean no: core >= 0.35 · strong no: below."""
    answered = [c for c in cards if c.score is not None]
    if not answered:
        return None
    core = sum(c.core_credit for c in answered) / len(answered)
    unprompted = sum(c.core_unprompted for c in answered) / len(answered)
    if any(c.red_flag or c.stated_wrongly for c in answered):
        return "lean_no" if core >= FATAL_LEAN_NO_CORE else "strong_no"
    if unprompted >= STRONG_YES_UNPROMPTED:
        return "strong_yes"
    if core >= LEAN_YES_CORE:
        return "lean_yes"
    return "lean_no" if core >= LEAN_NO_CORE else "strong_no"


def coaching_lines(bites: list[Bite], cards: list[QuestionCard], limit: int = 2) -> list[str]:
    """The coaching lines that would change the outcome most: a core point stated wrongly or
    never made, then one only partly made, then one made only when asked, then depth."""
    order = {("core", "wrong"): 0, ("core", "missed"): 1, ("core", "partly"): 2, ("core", "rescued"): 3,
             ("depth", "wrong"): 4, ("depth", "missed"): 5, ("depth", "partly"): 6}
    ranked = []
    for q, (bite, card) in enumerate(zip(bites, cards)):
        if card.score is None:
            continue
        for k, ((_, kind, got), point) in enumerate(zip(card.outcomes, bite.key_points)):
            if (kind, got) in order:
                asked = " (you made this point only when asked: make it unprompted)" if got == "rescued" else ""
                ranked.append((order[(kind, got)], q, k, f"{bite.title}: {point.coaching}{asked}"))
    return [line for *_, line in sorted(ranked)[:limit]]


@dataclass(frozen=True)
class Scorecard:
    questions: tuple[QuestionCard, ...]
    signal: Signal | None
    coaching: tuple[str, ...]
    xp: int = 0
    ended: str = "finished"  # finished | ended (by the member) | expired
    extra: dict = field(default_factory=dict, compare=False)


def follow_up_xp(statuses: list[str], earned_so_far: int) -> int:
    """XP for one follow-up answer: only a point that lands earns, within the interview's cap."""
    return max(0, min(FOLLOW_UP_XP.get(statuses[0] if statuses else "", 0), FOLLOW_UP_XP_CAP - earned_so_far))
