"""Every button and form the bot sends, by action (the `custom_id`'s kind, bot/custom_ids.py):
its handler and how it must be answered. Every other list of actions is derived from this
table, as a message bus maps message types to handlers; a new button is one entry here
and one template in bot/custom_ids.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Awaitable, Callable, Mapping

from bot.custom_ids import Decoded
from bot.protocols import Actor, Hub
from bot.render.replies import Reply


Run = Callable[[Hub, Actor, Decoded, Mapping[str, str]], Awaitable[Reply]]


@dataclass(frozen=True)
class Action:
    run: Run  # (handlers, actor, the decoded id, a form's values) -> the reply
    slow: bool = False  # it grades: acknowledge first
    opens_modal: bool = False  # answered with a modal, which cannot follow an acknowledgement
    form: bool = False  # a modal's submission, not a button


ACTIONS: dict[str, Action] = {
    "answer": Action(lambda h, a, d, _: h.quizzes.answer(a, d.session, d.position, d.choice)),
    "next": Action(lambda h, a, d, _: h.quizzes.next(a, d.session, d.position)),
    "stop": Action(lambda h, a, d, _: h.quizzes.stop(a, d.session)),
    "quiz_bite": Action(lambda h, a, d, _: h.quizzes.quiz_bite(a, d.bite)),
    "read": Action(lambda h, a, d, _: h.explaining.read(d.bite)),
    "explain": Action(lambda h, a, d, _: h.explaining.open_answer(d.bite), opens_modal=True),
    "regrade": Action(lambda h, a, d, _: h.explaining.regrade(a, d.bite, d.draft), slow=True),
    "answer_modal": Action(lambda h, a, d, v: h.explaining.submit_answer(a, d.bite, v.get("answer", "")),
                           slow=True, form=True),
    "report": Action(lambda h, a, d, _: h.account.report_form(d.kind, d.item), opens_modal=True),
    "report_modal": Action(lambda h, a, d, v: h.account.report(a, d.kind, d.item, v.get("note", "")), form=True),
    "forget": Action(lambda h, a, d, _: h.account.forget_confirmed(a, d.nonce)),
    "daily": Action(lambda h, a, d, _: h.daily.daily_answer(a, d.day, d.choice)),
    "voice_grade": Action(lambda h, a, d, _: h.voice.press(a, d), slow=True),
    "voice_fix": Action(lambda h, a, d, _: h.voice.press(a, d), opens_modal=True),
    "voice_modal": Action(lambda h, a, d, v: h.voice.submit(a, d, v), slow=True, form=True),
    "interview_answer": Action(lambda h, a, d, _: h.interviewing.open_answer(a, d.interview, d.turn), opens_modal=True),
    "interview_pass": Action(lambda h, a, d, _: h.interviewing.pass_turn(a, d.interview, d.turn)),
    "interview_end": Action(lambda h, a, d, _: h.interviewing.end(a, d.interview)),
    "interview_modal": Action(lambda h, a, d, v: h.interviewing.submit(a, d.interview, d.turn, v.get("answer", "")),
                              slow=True, form=True),
}

BUTTON_ACTIONS = tuple(name for name, action in ACTIONS.items() if not action.form)
FORM_ACTIONS = tuple(name for name, action in ACTIONS.items() if action.form)
SLOW_ACTIONS = frozenset(name for name, action in ACTIONS.items() if action.slow)
MODAL_OPENERS = frozenset(name for name, action in ACTIONS.items() if action.opens_modal)
