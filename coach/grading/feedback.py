"""The words the user reads: a verdict, coaching for what to fix, and the next question.

Deterministic and LLM-free, so every grader (and the fallback) explains itself the same
way. The coaching lines and follow-up questions are written per key point in the content;
the key points themselves are listed by the adapters (embed fields, CLI lines), so the
feedback does not repeat them.
"""

from __future__ import annotations

from coach.grading.models import KeyPointVerdict, Verdicts
from content import Bite, Catalog

COACHING_SHOWN = 2
HEADLINES = {
    4: "That would land in a real interview.",
    3: "Solid and correct, with a gap an interviewer would probe.",
    2: "You have the gist; the mechanism needs to be sharper.",
    1: "That says what it is for, but not how it works yet.",
    0: "That doesn't answer the question yet.",
}
BURIED_POINT = "One real point came through; the rest of the mechanism is missing."
CORE_WRONG = "The central claim about how it works is wrong, so this would not land yet."
_STATUS_ORDER = {"wrong": 0, "missing": 1, "partial": 2}


def to_fix(bite: Bite, verdicts: list[KeyPointVerdict]) -> list[int]:
    """Indexes of the points not covered, most important first: core before depth, a wrong
    claim before a missing one before a loose one, then the rubric's own order."""
    weak = [i for i, v in enumerate(verdicts) if v.status != "covered"]
    return sorted(weak, key=lambda i: (bite.key_points[i].kind != "core", _STATUS_ORDER[verdicts[i].status], i))


WRONG_SHOWN = 2


def feedback_text(bite: Bite, verdicts: Verdicts, *, score: int, explains=None) -> str:
    """`explains`: the bite an answer about another concept seems to explain (a Suggestion)."""
    if verdicts.injection:
        return (
            "Your answer included text aimed at the grader (a requested score, a verdict, or instructions) "
            "instead of an explanation, so it scores 0. Answer the question in your own words and try again."
        )
    if verdicts.off_topic:
        other = f"**{explains.title}**" if explains is not None else "a different concept"
        offer = ("If that is what you meant to explain, grade it as that bite below. Otherwise, answer "
                 if explains is not None else "Answer ")
        return f"This explains {other}, not **{bite.title}**, so it scores 0 for this question. {offer}this one: {bite.prompt}"
    if verdicts.keyword_soup:
        return (
            "That reads as a list of terms rather than an explanation, so it scores 0. "
            "Say how the pieces connect: what happens, in what order, and why it matters."
        )
    if verdicts.red_flag:
        lines = [f"Careful, this is the mistake interviewers listen for: {bite.red_flag}"]
    elif any(v.status == "wrong" and v.kind == "core" for v in verdicts.key_points):
        lines = [CORE_WRONG]
    else:
        buried = score == 1 and not verdicts.purpose  # a point came through, but not the purpose
        lines = [BURIED_POINT if buried else HEADLINES[score]]
    wrong = [v for v in verdicts.key_points if v.status == "wrong"][:WRONG_SHOWN]
    for v in wrong:  # the claim that was wrong, and what is true instead
        said = f"You said “{v.evidence}”, but" if v.evidence else "One claim was off:"
        lines.append(f"{said} in fact: {v.point}")
    if verdicts.red_flag_possible and not verdicts.red_flag:
        lines.append(f"This may be the mistake interviewers listen for: {bite.red_flag} "
                     "If you meant something else, say it more precisely.")
    fixes = to_fix(bite, verdicts.key_points)[:COACHING_SHOWN]
    if fixes:
        lines.append("To make it land:")
        lines += [f"• {bite.key_points[i].coaching}" for i in fixes]
    return "\n".join(lines)


def follow_up_question(bite: Bite, verdicts: list[KeyPointVerdict], catalog: Catalog, *, injection: bool) -> str:
    """The next thing an interviewer would ask: probe the most important missed point,
    or, when everything landed, move to a related bite."""
    if injection:
        return bite.prompt
    fixes = to_fix(bite, verdicts)
    if fixes:
        return bite.key_points[fixes[0]].follow_up
    for related_id in bite.related:
        if related_id in catalog.bites:
            return catalog.bites[related_id].prompt
    questions = catalog.questions_for(bite.id)
    return questions[0].stem if questions else bite.prompt
