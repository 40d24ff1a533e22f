"""The interview's replies: the question being asked (with the last turn's one-line verdict),
its answer box, and the scorecard. Pure, and fitted to Discord's limits like every reply."""

from __future__ import annotations

from dataclasses import replace

from bot import custom_ids as ids
from bot.render.limits import clip, fit
from bot.render.messages import AMBER, BLUE, GREEN, GRADER_NOTES, RED
from bot.render.replies import Button, Embed, Field, Modal, Reply, TextInput
from coach.interview.rules import SIGNAL_WORDS

SIGNAL_COLOURS = {"strong_yes": GREEN, "lean_yes": GREEN, "lean_no": AMBER, "strong_no": RED}
ENDINGS = {"finished": "Interview over.", "ended": "You ended the interview.",
           "expired": "The interview ran out of time (15 minutes a turn, 45 in all)."}
CPU_FOLLOW_UP_AGREEMENT = "seven"  # exact agreement on the held-out follow-up answers (set 3: 68%)
# Without an LLM grader the turn lines come from the CPU judges; how far to trust them follows
# what was measured (docs/grading.md, "How the interview was checked").
CPU_NOTE = ("Noted by the CPU grader (no LLM grader here): its follow-up verdicts match an interviewer's "
            "about {agree} times in ten, and it does not catch a point stated wrongly — trust the "
            "scorecard's coaching more than its ticks.")
HOW_TO = ("Answer as you would out loud. **I don't know** moves on, as in a real interview; "
          "**End interview** shows the scorecard of what you answered.")


def cpu_note(grader: str) -> str:
    """The CPU judges' label: a first answer's is the grade's own; a follow-up's says how rough it is."""
    return CPU_NOTE.format(agree=CPU_FOLLOW_UP_AGREEMENT) if grader == "followup" else \
        GRADER_NOTES.get(grader, GRADER_NOTES["embedding"])


def _line(step) -> str:
    if not step.line:
        return ""
    if step.line == "passed":
        return "Noted — let's move on.\n\n"
    return f"Noted: that **{step.line}**.\n\n"


def asking(step, question: str, *, note: str = "") -> Reply:
    """The question or follow-up being asked now, with the buttons that answer it."""
    state = step.state
    q, point = state.asking
    total = len(state.bite_ids)
    title = f"Interview — question {q + 1} of {total}" if point is None else f"Interview — follow-up (question {q + 1} of {total})"
    footer = HOW_TO
    if step.grader and step.grader != "llm":
        footer += " " + cpu_note(step.grader)
    embed = Embed(title=title, description=f"{note}{_line(step)}**{question}**", footer=footer, colour=BLUE)
    buttons = (
        Button("Answer", ids.interview_answer(state.interview_id, state.turn), "success", key="answer"),
        Button("I don't know", ids.interview_pass(state.interview_id, state.turn), key="idk"),
        Button("End interview", ids.interview_end(state.interview_id), "danger", key="end"),
    )
    return fit(Reply(embed=embed, buttons=buttons, outcome="interview:asked",
                     extra={"interview_id": state.interview_id, "turn": state.turn, "point": point}))


def answer_modal(state, question: str, *, max_chars: int) -> Reply:
    box = TextInput("answer", "Your answer", paragraph=True, max_length=min(max_chars, 4000),
                    placeholder=clip(question, 100))
    return fit(Reply(modal=Modal("Interview answer", ids.interview_modal(state.interview_id, state.turn), (box,))))


def _question_field(number: int, card) -> Field:
    if card.score is None:
        return Field(f"{number}. {card.title}", "Not reached.")
    lines = []
    for label, outcome in (("✅ Landed at the first ask", "landed"), ("🛟 Rescued on follow-up", "rescued"),
                           ("➖ Partly there", "partly"), ("❌ Never landed", "missed"),
                           ("⚠️ Stated wrongly", "wrong")):
        points = card.by_outcome(outcome)
        if points:
            lines.append(f"{label}:\n" + "\n".join(f"• {clip(p, 150)}" for p in points))
    if card.red_flag:
        lines.append("🚩 Red flag: the mistake that ends this conversation in a real interview.")
    follow_ups = f", {card.follow_ups} follow-up{'s' if card.follow_ups != 1 else ''}"
    return Field(f"{number}. {card.title} — first answer {card.score}/4{follow_ups}", "\n".join(lines))


def scorecard(card, *, grader: str = "", note: str = "") -> Reply:
    """Per question what landed at once, what was rescued and what never landed; the signal;
    the two coaching lines that would change the outcome most."""
    if card.signal is None:
        title, colour = "Interview scorecard — nothing answered", BLUE
        verdict = "No answers, so no signal. Start again with `/interview` when you are ready."
    else:
        title, colour = f"Interview scorecard — {SIGNAL_WORDS[card.signal]}", SIGNAL_COLOURS[card.signal]
        verdict = f"An interviewer's call on these answers: **{SIGNAL_WORDS[card.signal]}**."
    fields = [_question_field(i, q) for i, q in enumerate(card.questions, start=1)]
    if card.coaching:
        fields.append(Field("What would change the outcome most", "\n".join(f"• {line}" for line in card.coaching)))
    footer = f"+{card.xp} XP from follow-ups." if card.xp else ""
    if grader and grader != "llm":
        footer = (footer + " " + cpu_note(grader)).strip()
    embed = Embed(title=title, description=f"{note}{ENDINGS.get(card.ended, '')} {verdict}",
                  fields=tuple(fields), footer=footer, colour=colour)
    buttons = tuple(Button(f"Read: {clip(q.title, 60)}", ids.read_bite(q.bite_id), row=0)
                    for q in card.questions[:3] if q.score is not None)
    return fit(Reply(embed=embed, buttons=buttons, outcome="interview:scorecard",
                     extra={"signal": card.signal, "xp": card.xp}))


def lapsed_note(card) -> str:
    """An interview that ran out of time while the member was away, said once with their next
    command (or by DM when they allow reminders)."""
    if card.signal is None:
        return "⏱️ Your last interview ran out of time before anything was answered; `/interview` starts a new one."
    work_on = f" Most to work on: {clip(card.coaching[0], 300)}" if card.coaching else ""
    return (f"⏱️ Your last interview ran out of time. An interviewer's call on what you answered: "
            f"**{SIGNAL_WORDS[card.signal]}**.{work_on} (`/stats` keeps it.)")


def with_note(reply: Reply, note: str) -> Reply:
    """`note` above the reply's own text."""
    return fit(replace(reply, content=f"{note}\n\n{reply.content}".strip()))


def with_interview_history(reply: Reply, history: list) -> Reply:
    """/stats: interviews taken and their signals over time (oldest first), when there are any."""
    if not history or reply.embed is None:
        return reply
    signals = [f"{at:%d %b} {SIGNAL_WORDS[signal]}" for at, signal in history[-8:] if at is not None and signal]
    text = f"{len(history)} taken" + (": " + " → ".join(signals) if signals else "")
    return replace(reply, embed=replace(reply.embed, fields=(*reply.embed.fields, Field("Interviews", clip(text, 1000)))))
