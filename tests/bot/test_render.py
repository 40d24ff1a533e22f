"""Rendering: whatever text authors or users wrote, every Reply fits Discord's limits."""

from datetime import date, datetime, timezone
from types import SimpleNamespace as NS

from hypothesis import given, settings, strategies as st

from bot.render import limits
from bot.render import messages as render
from bot.render.replies import Button, Embed, Field, Reply
from coach.grading.models import Grade, KeyPointVerdict, OffTopic, Suggestion
from coach.results import AnswerResult, DailyResults, QuestionView, QuizState, Summary, WeakBite

texts = st.text(min_size=1, max_size=6000)
short = st.text(min_size=1, max_size=300)
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


def bite_like(title, body):
    return NS(id="kv-cache", track="inference", title=title, prompt=body, tags=("a", body[:50]), summary=body,
              explainer=body * 2, tests=body, key_points=(body,) * 4, model_answer=body, related=())


def state(stem, option, position=0, total=30):
    q = QuestionView("kv-cache-growth", "kv-cache", stem[:300], stem, (option,) * 4, position, total)
    return QuizState(123456789, 1, 2, "inference", "quiz", "active", position, total, 0, q, NOW, NOW, NOW)


@settings(max_examples=60, deadline=None)
@given(short, texts)
def test_bite_and_prompt_fit(title, body):
    for reply in (render.bite(bite_like(title, body)), render.explain_prompt(bite_like(title, body)),
                  render.answer_modal(bite_like(title, body), value=body)):
        assert limits.problems(reply) == []


@settings(max_examples=60, deadline=None)
@given(texts, texts, st.integers(0, 29))
def test_question_and_answer_fit(stem, option, position):
    s = state(stem, option, position)
    assert limits.problems(render.question(s)) == []
    result = AnswerResult("ok", position, 30, correct=False, choice=1, correct_choice=2, explanation=option,
                          bite_id="kv-cache", bite_title=stem[:200], xp_gained=10)
    reply = render.answered(result, s)
    assert limits.problems(reply) == []
    assert "the answer is **C**" in reply.embed.description


@settings(max_examples=60, deadline=None)
@given(texts, st.lists(st.sampled_from(["covered", "partial", "missing", "wrong"]), min_size=3, max_size=5),
       st.integers(0, 4), st.booleans())
def test_grade_fits_and_labels_the_fallback(text, statuses, score, red_flag):
    grade = Grade(bite_id="kv-cache", title=text[:100], score=score,
                  key_points=[KeyPointVerdict(point=text, status=s, evidence=text) for s in statuses],
                  red_flag=red_flag, injection=False, grader="embedding", feedback=text, model_answer=text,
                  follow_up=text, truncated=True)
    alternatives = [NS(bite_id="quantization-basics", title=text[:200])]
    reply = render.grade(grade, draft="0123abcd", alternatives=alternatives, retrieved=True)
    assert limits.problems(reply) == []
    assert "fallback embedding grader" in reply.embed.footer
    assert reply.embed.title.startswith(f"Score {score}/4")


def test_grade_quotes_the_users_words_for_landed_points():
    grade = Grade(bite_id="kv-cache", title="The KV cache", score=3,
                  key_points=[KeyPointVerdict(point="Stores keys and values", status="covered", evidence="keeps K and V"),
                              KeyPointVerdict(point="Memory grows", status="missing", evidence=None)],
                  red_flag=True, injection=False, grader="llm", model_answer="M", follow_up="F?", truncated=False,
                  feedback="Careful, this is the mistake interviewers listen for: says it stores weights.")
    embed = render.grade(grade).embed
    fields = {f.name: f.value for f in embed.fields}
    assert '"keeps K and V"' in fields["Landed"] and "Memory grows" in fields["Missed"]
    # Said once: the red flag in the description (the feedback), the points in the fields.
    assert grade.feedback in embed.description and "Red flag" not in fields
    assert "Stores keys and values" not in embed.description and "Memory grows" not in embed.description
    assert render.grade(grade).embed.footer == "Graded by the LLM grader."


def test_a_quote_of_a_whole_long_sentence_is_shown_whole():
    # A 30-word sentence: the words that earned the tick are often its last ones.
    sentence = ("The price of the cache is memory, and it grows linearly with the sequence length and with the number "
                "of sequences that the server keeps in the running batch at the same time, per layer")
    grade = Grade(bite_id="kv-cache", title="The KV cache", score=3,
                  key_points=[KeyPointVerdict(point="Memory grows", status="covered", evidence=sentence)],
                  red_flag=False, injection=False, grader="embedding", model_answer="M", follow_up="F?",
                  truncated=False, feedback="Good.")
    assert len(sentence) > 160 and f'"{sentence}"' in {f.name: f.value for f in render.grade(grade).embed.fields}["Landed"]


@given(st.lists(short, max_size=8))
def test_off_topic_offers_bites_not_a_grade(titles):
    result = OffTopic(suggestions=[Suggestion(bite_id="kv-cache", title=t, score=0.1) for t in titles])
    reply = render.off_topic(result, draft="deadbeef")
    assert reply.embed is None and limits.problems(reply) == []


def test_summary_and_daily_post_fit_and_say_what_users_expect():
    summary = Summary(1, "finished", 7, 10, 10, 90, 20, 3, (WeakBite("kv-cache", "The KV cache", 2),), 4)
    fields = {f.name: f.value for f in render.summary(summary).embed.fields}
    assert fields["Score"] == "7/10" and "20 finish bonus" in fields["XP"] and fields["Streak"] == "3 days"
    assert "The KV cache" in fields["Weakest bites"]
    pick = NS(local_date=date(2026, 11, 30), question=state("Stem " * 500, "Option " * 300).question,
              bite_id="kv-cache")
    yesterday = DailyResults(1, date(2026, 11, 29), 12, (1, 7, 3, 1), (1 / 12, 7 / 12, 3 / 12, 1 / 12), 2)
    reply = render.daily_post(pick, bite_like("The KV cache", "x" * 5000), yesterday)
    assert limits.problems(reply) == []
    assert "58% chose B" in {f.name: f.value for f in reply.embed.fields}["Yesterday"]


def test_fit_moves_overflowing_buttons_into_rows_and_drops_the_rest():
    buttons = tuple(Button(f"b{i}" * 50, f"b:x{i}") for i in range(30))
    fitted = limits.fit(Reply(buttons=buttons, embed=Embed(fields=tuple(Field("", "") for _ in range(30)))))
    assert limits.problems(fitted) == []
    assert len(fitted.buttons) == 25 and max(b.row for b in fitted.buttons) == 4
    assert all(len(b.label) <= 80 for b in fitted.buttons)


def test_a_long_text_is_split_after_sentences_and_loses_nothing():
    from bot.render.limits import field_chunks

    text = " ".join(f"Sentence number {i} says something." for i in range(80))
    pieces = field_chunks(text, 100)
    assert all(len(p) <= 100 and p.endswith(".") for p in pieces)
    assert " ".join(pieces) == text
    assert field_chunks("a\nb\nc", 3, breaks=("\n",)) == ["a\nb", "c"] and field_chunks("") == []
