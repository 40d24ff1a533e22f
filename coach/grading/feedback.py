"""The words the user reads: what landed, what was missing, and the next question.

Deterministic and LLM-free, so every grader (and the fallback) explains itself the same way.
"""

from __future__ import annotations

from coach.grading.models import KeyPointVerdict
from content import Bite, Catalog

_WEAKEST_FIRST = {"wrong": 0, "missing": 1, "partial": 2, "covered": 3}


def _bullets(points: list[KeyPointVerdict]) -> str:
    return " ".join(f"• {p.point}" for p in points)


def feedback_text(
    bite: Bite, verdicts: list[KeyPointVerdict], *, score: int, red_flag: bool, injection: bool, keyword_soup: bool
) -> str:
    if injection:
        return (
            "Your answer included text aimed at the grader (a requested score, a verdict, or instructions) "
            "instead of an explanation, so it scores 0. Answer the question in your own words and try again."
        )
    if keyword_soup:
        return (
            "That reads as a list of terms rather than an explanation, so it scores 0. "
            "Say how the pieces connect: what happens, in what order, and why it matters."
        )
    parts = []
    if red_flag:
        parts.append(f"Careful, this is the mistake interviewers listen for: {bite.red_flag}")
    by_status = {s: [v for v in verdicts if v.status == s] for s in ("covered", "partial", "wrong", "missing")}
    if by_status["covered"]:
        parts.append(f"What landed: {_bullets(by_status['covered'])}")
    if by_status["partial"]:
        parts.append(f"Partly there, say it more precisely: {_bullets(by_status['partial'])}")
    if by_status["wrong"]:
        parts.append(f"Not right: your answer contradicts this: {_bullets(by_status['wrong'])}")
    if by_status["missing"]:
        parts.append(f"Missing: {_bullets(by_status['missing'])}")
    if score == 4:
        parts.append("That is a complete answer.")
    elif not by_status["covered"] and not by_status["partial"]:
        parts.append("None of the key points came through yet; the model answer below shows one way to say it.")
    return "\n".join(parts)


def _as_clause(point: str) -> str:
    """'The cache stores X.' -> 'the cache stores X' (keeps acronyms such as 'MQA' intact)."""
    text = point.strip().rstrip(".")
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        text = text[0].lower() + text[1:]
    return text


def follow_up_question(bite: Bite, verdicts: list[KeyPointVerdict], catalog: Catalog, *, injection: bool) -> str:
    """The next thing an interviewer would ask: probe the weakest point, or move to a related bite."""
    if injection:
        return bite.prompt
    weak = sorted((v for v in verdicts if v.status != "covered"), key=lambda v: _WEAKEST_FIRST[v.status])
    if weak:
        return f"Let's dig into one part: why is it true that {_as_clause(weak[0].point)}?"
    for related_id in bite.related:
        if related_id in catalog.bites:
            return catalog.bites[related_id].prompt
    questions = catalog.questions_for(bite.id)
    return questions[0].stem if questions else bite.prompt
