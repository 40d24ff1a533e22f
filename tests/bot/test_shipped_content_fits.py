"""Every shipped bite and question, rendered the way members see it, reaches Discord whole:
within Discord's limits (bot/render/limits.py) with nothing an author wrote cut short. Content keeps
its own length rules (content/validate.py); this is where they meet the platform's."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from bot.render import limits
from bot.render import messages as render
from coach.grading.feedback import feedback_text, follow_up_question
from coach.grading.models import Grade, KeyPointVerdict, Verdicts
from coach.results import AnswerResult, DailyPick, QuestionView, QuizState
from content import default_catalog

CATALOG = default_catalog()
NOW = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
BITES = sorted(CATALOG.bites.values(), key=lambda b: b.id)
QUESTIONS = sorted(CATALOG.questions.values(), key=lambda q: q.id)


def embed_text(reply) -> str:
    embed = reply.embed
    return "\n".join([embed.title, embed.description, embed.footer, *(f"{f.name}\n{f.value}" for f in embed.fields)])


def view(question, position=29, total=30) -> QuestionView:
    """The question as a session shows it, its options in the authored order, at the
    position with the longest progress line."""
    bite = CATALOG.bites[question.bite_id]
    return QuestionView(question.id, bite.id, bite.title, question.stem, tuple(question.options), position, total)


def test_the_shipped_catalog_is_not_empty():
    assert len(BITES) >= 40 and len(QUESTIONS) >= 120


@pytest.mark.parametrize("bite", BITES, ids=lambda b: b.id)
def test_a_bite_and_its_prompt_arrive_whole(bite):
    card, prompt = render.bite(bite), render.explain_prompt(bite)
    assert limits.problems(card) == [] and limits.problems(prompt) == []
    assert card.embed.title == bite.title
    for text in (bite.summary, bite.explainer, bite.tests):
        assert text in embed_text(card)
    assert bite.prompt in prompt.embed.description


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.id)
def test_a_question_its_answer_and_its_daily_post_arrive_whole(question):
    shown = view(question)
    state = QuizState(2**62, 2**62, 2**62, "inference", "review", "active", shown.position, shown.total, 29, shown,
                      NOW, NOW, NOW)
    asked = render.question(state)
    wrong = next(i for i in range(len(question.options)) if i != question.answer)
    result = AnswerResult("ok", shown.position, shown.total, correct=False, choice=wrong,
                          correct_choice=question.answer, explanation=question.explanation,
                          bite_id=question.bite_id, bite_title=shown.bite_title, xp_gained=0, finished=True)
    answered = render.answered(result, state)
    bite = CATALOG.bites[question.bite_id]
    pick = DailyPick(2**62, 2**62, date(2026, 9, 30), bite.track, bite.id, bite.title, view(question, 0, 1), False)
    post = render.daily_post(pick, bite)
    for reply in (asked, answered, post):
        assert limits.problems(reply) == []
    for text in (question.stem, *question.options):
        assert text in asked.embed.description and text in embed_text(post)
    assert question.explanation in answered.embed.description
    assert bite.explainer in post.embed.description


def worst_grade(bite) -> Grade:
    """The longest grade reply a bite can get: every key point missed and its red flag said."""
    missed = [KeyPointVerdict(point=kp.point, status="missing", kind=kp.kind) for kp in bite.key_points]
    verdicts = Verdicts(key_points=missed, red_flag=True, injection=False)
    return Grade(bite_id=bite.id, title=bite.title, score=0, key_points=missed, red_flag=True, injection=False,
                 grader="embedding", feedback=feedback_text(bite, verdicts, score=0), model_answer=bite.model_answer,
                 follow_up=follow_up_question(bite, missed, CATALOG, injection=False), truncated=True)


@pytest.mark.parametrize("bite", BITES, ids=lambda b: b.id)
def test_a_grade_with_everything_missed_arrives_whole(bite):
    grade = worst_grade(bite)
    reply = render.grade(grade, retrieved=True)
    assert limits.problems(reply) == []
    model_answer = " ".join(" ".join(f.value.split()) for f in reply.embed.fields if f.name.startswith("Model answer"))
    assert model_answer == " ".join(bite.model_answer.split())
    shown = embed_text(reply)
    for text in (grade.follow_up, bite.red_flag, *(kp.point for kp in bite.key_points)):
        assert text in shown
