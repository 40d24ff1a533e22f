"""Pure functions: a domain result in, a Reply that fits Discord's limits out.

Every function here ends with `fit(...)`, so no text an author or a user wrote can
push a message over a limit. The console prints the same Replies.
"""

from __future__ import annotations

from dataclasses import replace

from bot import custom_ids as ids
from bot.command_table import help_lines
from bot.render.limits import SENTENCE_ENDS, clip, field_chunks, fit
from bot.render.replies import Button, Embed, Field, Modal, Reply, TextInput, notice
from bot.render.voice import HELD_MINUTES, delivery_field
from coach.grading.drafts import KEPT_AT_MOST as DRAFTS_KEPT_AT_MOST

LETTERS = "ABCD"
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
GREEN, RED, AMBER, BLUE = 0x2ECC71, 0xE74C3C, 0xF1C40F, 0x5865F2
SCORE_WORDS = {4: "excellent", 3: "strong", 2: "partial", 1: "weak", 0: "not there yet"}
# How far to trust each grader, as measured on answers written outside the project (docs/grading.md).
GRADER_NOTES = {
    "llm": "Graded by the LLM grader.",
    "combined": "Graded by the CPU grader (no LLM grader here): close to an interviewer's grade on most answers, "
                "but it can be fooled by a fluent answer built on a misconception — use the coaching, not just the number.",
    "trained": "Graded by the CPU grader (no LLM grader here): close to an interviewer's grade on most answers, "
               "but it can miss a point said in unusual words — use the coaching, not just the number.",
    "embedding": "Graded by the fallback embedding grader (the LLM grader is unavailable right now) — "
                 "treat it as a rough score.",
}


def report_button(kind: str, item_id: str, row: int = 4) -> Button:
    return Button("Report this question" if kind == "q" else "Report this bite", ids.report(kind, item_id),
                  row=row, key="report")


def bite(bite, *, heading: str = "") -> Reply:
    """A bite: the 60-second explainer, with "Quiz me" and "Explain it out loud"."""
    fields = [Field("What the interviewer is checking", bite.tests)]
    if bite.tags:
        fields.append(Field("Tags", ", ".join(bite.tags), inline=True))
    embed = Embed(
        title=bite.title,
        description=f"*{bite.summary}*\n\n{bite.explainer}",
        fields=tuple(fields),
        footer=heading or f"{bite.track} · {bite.id}",
        colour=BLUE,
    )
    buttons = (
        Button("Quiz me", ids.quiz_bite(bite.id), "primary", key="quiz"),
        Button("Explain it out loud", ids.explain(bite.id), "success", key="explain"),
        report_button("b", bite.id, row=1),
    )
    return fit(Reply(embed=embed, buttons=buttons))


def explain_prompt(bite) -> Reply:
    """The interview question for a bite, and the button that opens the answer box."""
    embed = Embed(
        title=f"Explain it out loud: {bite.title}",
        description=f"**{bite.prompt}**\n\nAnswer as you would in the interview: the mechanism, "
        "why it matters, and the trade-off. Press **Answer** to type it.",
        colour=BLUE,
    )
    return fit(Reply(embed=embed, buttons=(Button("Answer", ids.explain(bite.id), "success", key="answer"),)))


def answer_modal(bite=None, *, value: str = "", max_chars: int = 4000) -> Reply:
    title = f"Explain: {bite.title}" if bite else "Explain it out loud"
    placeholder = clip(bite.prompt, 100) if bite else "Any topic from the tracks; I'll find which bite it is."
    box = TextInput("answer", "Your answer", paragraph=True, max_length=min(max_chars, 4000),
                    placeholder=placeholder, value=value)
    return fit(Reply(modal=Modal(title, ids.answer_modal(bite.id if bite else None), (box,))))


def report_modal(kind: str, item_id: str) -> Reply:
    box = TextInput("note", "What is wrong with it?", max_length=1000,
                    placeholder="e.g. option C is also correct because...")
    title = "Report this question" if kind == "q" else "Report this bite"
    return fit(Reply(modal=Modal(title, ids.report_modal(kind, item_id), (box,))))


# A quote is one sentence of the answer (at most 30 words) or a 20-word window of a longer one: room
# for the whole of it, so the words that earned the tick are not the ones cut off.
QUOTE_CHARS = 240


def _quote(text: str | None, limit: int = QUOTE_CHARS) -> str:
    return f' — "{clip(text, limit)}"' if text else ""


def _long_field(name: str, text: str, breaks=SENTENCE_ENDS) -> list[Field]:
    """A text longer than one field holds goes on in more fields, whole."""
    pieces = field_chunks(text, breaks=breaks)
    return [Field(name if i == 0 else f"{name} (continued)", piece) for i, piece in enumerate(pieces)]


def grade(result, *, draft: str | None = None, alternatives=(), retrieved: bool = False) -> Reply:
    """The graded explanation: score, what landed and what was missed (quoting the
    user's own words), the red flag, the model answer, the follow-up question."""
    landed = [f"✅ {kp.point}{_quote(kp.evidence)}" for kp in result.key_points if kp.status == "covered"]
    partial = [f"➖ {kp.point}{_quote(kp.evidence)}" for kp in result.key_points if kp.status == "partial"]
    missed = [f"❌ {kp.point}" for kp in result.key_points if kp.status == "missing"]
    wrong = [f"⚠️ {kp.point}{_quote(kp.evidence)}" for kp in result.key_points if kp.status == "wrong"]
    fields = []
    if getattr(result, "delivery", None) is not None:  # a voice answer: how it was said, under the score
        fields.append(delivery_field(result.delivery))
    for name, lines in (("Landed", landed), ("Partly there", partial), ("Missed", missed), ("Stated wrongly", wrong)):
        fields += _long_field(name, "\n".join(lines), breaks=("\n",))
    # The red flag, a possible red flag and an injection are said once, in the feedback (the description).
    fields += _long_field("Model answer", result.model_answer)
    fields.append(Field("Follow-up an interviewer would ask", result.follow_up))
    grader_note = GRADER_NOTES.get(result.grader, GRADER_NOTES["embedding"])
    header = f"Graded against **{result.title}**" + (" (found from your answer)" if retrieved else "")
    if result.truncated:
        header += "\nYour answer was long, so only the first part was graded."
    colour = GREEN if result.score >= 3 else AMBER if result.score == 2 else RED
    embed = Embed(
        title=f"Score {result.score}/4 — {SCORE_WORDS.get(result.score, '')}",
        description=f"{header}\n\n{result.feedback}",
        fields=tuple(fields),
        footer=grader_note,
        colour=colour,
    )
    buttons = [
        Button("Try again", ids.explain(result.bite_id), "success", key="again"),
        Button("Read the bite", ids.read_bite(result.bite_id), key="bite"),
    ]
    if draft:
        for alt in alternatives[:3]:
            if alt.bite_id != result.bite_id:
                buttons.append(Button(f"Grade as: {alt.title}", ids.regrade(alt.bite_id, draft), row=1))
    buttons.append(report_button("b", result.bite_id))
    return fit(Reply(embed=embed, buttons=tuple(buttons), outcome=f"graded:{result.grader}",
                     extra={"score": result.score, "grader": result.grader, "bite_id": result.bite_id}))


def off_topic(result, *, draft: str | None = None) -> Reply:
    lines = [f"• {s.title}" for s in result.suggestions[:5]]
    text = result.message + ("\n\nClosest bites:\n" + "\n".join(lines) if lines else "")
    buttons = []
    for s in result.suggestions[:4]:
        custom_id = ids.regrade(s.bite_id, draft) if draft else ids.explain(s.bite_id)
        buttons.append(Button(f"Grade as: {s.title}", custom_id))
    return fit(Reply(content=text, buttons=tuple(buttons), outcome="off_topic"))


def tracks_line(tracks) -> str:
    """The catalog's tracks in one line for /help: id, title and how many bites."""
    return "Tracks: " + " · ".join(f"`{t.id}` ({t.title}, {len(t.bites)} bites)" for t in tracks.values())


def help_text(tracks, console: bool = False) -> Reply:
    """Every command of the table (bot/command_table.py), with how to use it where it is asked,
    and the catalog's tracks."""
    lines = ["**Interview Coach** — practice for ML-engineering interviews.", tracks_line(tracks),
             *help_lines(console=console)]
    if console:
        lines += ["", "In this console: answer with `a`–`d`, `next` for the next question, "
                  "type a button's number to press it, `/quit` to leave."]
    return fit(Reply(content="\n".join(lines)))


# ----- quizzes -----------------------------------------------------------------------------

def _options_block(options) -> str:
    return "\n".join(f"**{LETTERS[i]}.** {option}" for i, option in enumerate(options))


def question(state, *, heading: str = "") -> Reply:
    """The current question of a session: stem and options in the body, A–D buttons,
    a progress line, Stop and Report."""
    q = state.question
    label = "Review" if state.kind == "review" else "Quiz"
    embed = Embed(
        title=f"{label} · {q.position + 1}/{q.total} · {q.bite_title}",
        description=f"{q.stem}\n\n{_options_block(q.options)}",
        footer=heading or f"{state.correct} right so far · session {state.session_id}",
        colour=BLUE,
    )
    buttons = [
        Button(LETTERS[i], ids.answer(str(state.session_id), q.position, i), "primary", key=LETTERS[i].lower())
        for i in range(len(q.options))
    ]
    buttons.append(Button("Stop", ids.stop(str(state.session_id)), "danger", row=1, key="stop"))
    buttons.append(report_button("q", q.question_id, row=1))
    return fit(Reply(embed=embed, buttons=tuple(buttons), edit=True, outcome="question"))


def answered(result, state) -> Reply:
    """After a click: right or wrong, the explanation, the bite and Next (or Finish)."""
    q = state.question if state and state.question and state.question.position == result.position else None
    verdict = "✅ Right!" if result.correct else f"❌ Not quite — the answer is **{LETTERS[result.correct_choice]}**."
    lines = [verdict]
    if q is not None:
        lines.append(f"\n{q.stem}\n\n{_options_block(q.options)}")
    if result.choice is not None and not result.correct:
        lines.append(f"\nYou chose **{LETTERS[result.choice]}**.")
    lines.append(f"\n**Why:** {result.explanation or ''}")
    if result.xp_gained:
        lines.append(f"+{result.xp_gained} XP")
    embed = Embed(
        title=f"{result.position + 1}/{result.total} · {result.bite_title or ''}",
        description="\n".join(lines),
        footer=f"From the bite: {result.bite_title}" if result.bite_title else "",
        colour=GREEN if result.correct else RED,
    )
    session = str(state.session_id) if state else None
    buttons = []
    if result.bite_id:
        buttons.append(Button("Read the bite", ids.read_bite(result.bite_id), key="bite"))
    if session is not None:
        last = result.finished or result.position + 1 >= result.total
        buttons.append(Button("Finish" if last else "Next", ids.next_question(session, result.position + 1),
                              "primary", key="next"))
    if q is not None:
        buttons.append(report_button("q", q.question_id, row=1))
    return fit(Reply(embed=embed, buttons=tuple(buttons), edit=True, outcome="answered",
                     extra={"correct": result.correct, "xp": result.xp_gained}))


def answer_refused(result) -> Reply:
    text = {
        "already_answered": "You already answered that one — it counted once.",
        "not_owner": "That quiz belongs to someone else. Start your own with `/quiz`.",
        "expired": "That quiz expired. Start a new one with `/quiz`.",
        "finished": "That quiz is over. Start a new one with `/quiz`.",
        "not_found": "I can't find that quiz any more. Start a new one with `/quiz`.",
        "out_of_order": "That button belongs to an earlier question — use the latest message.",
    }.get(result.outcome, "That answer could not be recorded.")
    return notice(text, outcome=result.outcome)


def summary(result) -> Reply:
    share = f"{result.score}/{result.total}"
    fields = [
        Field("Score", share, inline=True),
        Field("XP", f"+{result.xp_earned}" + (f" (incl. {result.bonus_xp} finish bonus)" if result.bonus_xp else ""),
              inline=True),
        Field("Streak", f"{result.streak} day{'s' if result.streak != 1 else ''}", inline=True),
    ]
    if result.weakest_bites:
        fields.append(Field("Weakest bites", "\n".join(f"• {w.title} ({w.wrong} wrong)" for w in result.weakest_bites)))
    fields.append(Field("Reviews due", str(result.reviews_due) + (" — `/review` to go through them" if result.reviews_due else ""),
                        inline=True))
    title = "Quiz finished" if result.status == "finished" else "Quiz stopped"
    embed = Embed(title=title, description=f"You answered {result.answered} of {result.total}.", fields=tuple(fields),
                  colour=GREEN if result.total and result.score * 2 >= result.total else AMBER)
    buttons = tuple(Button(f"Read: {w.title}", ids.read_bite(w.bite_id), row=0) for w in result.weakest_bites[:3])
    return fit(Reply(embed=embed, buttons=buttons, edit=True, outcome="summary",
                     extra={"score": result.score, "xp": result.xp_earned}))


def conflict(state) -> Reply:
    """The user already has a session running: show where it is."""
    reply = question(state, heading="You already have a quiz running — here is where you left off. Stop it to start another.")
    return replace(reply, edit=False, outcome="resumed")


def nothing_due(explain_again) -> Reply:
    if not explain_again:
        return notice("Nothing is due for review. Come back tomorrow, or take a `/quiz`.", outcome="nothing_due")
    lines = ["No questions are due. These bites are due to be explained again:"]
    lines += [f"• {item.title}" for item in explain_again[:10]]
    buttons = tuple(Button(f"Explain: {item.title}", ids.explain(item.item_id)) for item in explain_again[:5])
    return fit(Reply(content="\n".join(lines), buttons=buttons, outcome="explain_again"))


# ----- progress, settings -------------------------------------------------------------------

def stats(result) -> Reply:
    accuracy = f"{100 * result.correct / result.answered:.0f}%" if result.answered else "—"
    fields = [
        Field("XP", f"{result.xp_total} total · {result.xp_guild} here", inline=True),
        Field("Streak", f"{result.streak} day{'s' if result.streak != 1 else ''}"
              + (" (at risk today!)" if result.streak_at_risk else ""), inline=True),
        Field("Accuracy", f"{accuracy} of {result.answered} answers", inline=True),
        Field("Reviews due", str(result.reviews_due), inline=True),
    ]
    if result.accuracy_by_bite:
        rows = [f"• {b.title}: {b.correct}/{b.answered}" for b in result.accuracy_by_bite[:15]]
        fields.append(Field("By bite", "\n".join(rows)))
    if result.last_attempts:
        rows = [f"• {a.title}: {a.score}/4 ({a.grader}) · {a.created_at:%Y-%m-%d}" for a in result.last_attempts[:10]]
        fields.append(Field("Last explanations", "\n".join(rows)))
    return fit(Reply(embed=Embed(title="Your progress", fields=tuple(fields)), outcome="stats"))


REASONS = {"due": "due for review", "weakest": "your weakest so far", "new": "not started yet"}
LEVEL_ORDER = ("mastered", "solid", "learning", "weak", "new")


def bite_map(mapping) -> Reply:
    """`/stats view:map`: the text beside the picture — counts per level, the bite to study
    next with buttons to read it or be quizzed on it, and the weakest bites."""
    counts = {level: sum(b.level == level for b in mapping.bites) for level in LEVEL_ORDER}
    practised = len(mapping.bites) - counts["new"]
    lines = [f"{practised} of {len(mapping.bites)} bites practised: "
             + ", ".join(f"{counts[level]} {level}" for level in LEVEL_ORDER if counts[level] and level != "new") + "."
             if practised else f"None of the {len(mapping.bites)} bites practised yet."]
    nxt = next((b for b in mapping.bites if b.bite_id == mapping.next_bite_id), None)
    buttons = []
    if nxt is not None:
        lines.append(f"**Next:** {nxt.title} — {REASONS.get(mapping.next_reason, mapping.next_reason)}.")
        buttons = [Button(f"Read: {nxt.title}", ids.read_bite(nxt.bite_id), "primary", key="bite"),
                   Button("Quiz me on it", ids.quiz_bite(nxt.bite_id), "success", key="quiz")]
    fields = []
    weakest = sorted((b for b in mapping.bites if b.mastery is not None), key=lambda b: (b.mastery, b.bite_id))[:5]
    if weakest:
        fields.append(Field("Weakest", "\n".join(f"• {b.title} — {100 * b.mastery:.0f}%" for b in weakest)))
    embed = Embed(title=f"Bite map · {mapping.track_title}", description="\n".join(lines), fields=tuple(fields),
                  footer="Mastery mixes quiz accuracy, your best explanation and how long you remember it.")
    return fit(Reply(embed=embed, buttons=tuple(buttons), outcome="bite_map",
                     extra={"next": mapping.next_bite_id, "practised": practised}))


def server_week(week) -> Reply:
    """The server's week in words (the picture goes beside it)."""
    embed = Embed(title=f"The server's week · {week.start:%d %b} – {week.end:%d %b}", description=week_summary(week))
    return fit(Reply(embed=embed, ephemeral=False, outcome="server_week"))


def week_summary(week) -> str:
    posted = [d for d in week.days if d.posted]
    answered = sum(d.total for d in posted)
    right = sum(d.counts[d.correct_choice] for d in posted if d.total and 0 <= d.correct_choice < len(d.counts))
    lines = [f"{week.answers} answers; {len(posted)} daily question{'s' if len(posted) != 1 else ''}"
             + (f", {100 * right / answered:.0f}% of their answers right." if answered else ".")]
    if week.most_missed:
        worst = week.most_missed[0]
        lines.append(f"Most missed: {worst.title} ({worst.wrong} of {worst.answered} wrong).")
    if week.leaders:
        lines.append("Top: " + ", ".join(f"<@{r.user_id}> {r.xp} XP" for r in week.leaders[:3]) + ".")
    return "\n".join(lines)


def picture_missing(reply: Reply, why: str = "The picture could not be drawn this time.") -> Reply:
    """The reply without its picture, saying so (in the embed's footer, or the text)."""
    if reply.embed is not None:
        footer = f"{reply.embed.footer} · {why}" if reply.embed.footer else why
        return fit(replace(reply, embed=replace(reply.embed, footer=footer), attachment=None))
    return fit(replace(reply, content=f"{reply.content}\n({why})".strip(), attachment=None))


def leaderboard(rows, period: str, *, names: dict[int, str] | None = None) -> Reply:
    names = names or {}
    if not rows:
        return notice(f"No XP earned here this {period} yet." if period != "all" else "No XP earned here yet.")
    lines = [f"**{r.rank}.** {names.get(r.user_id, f'<@{r.user_id}>')} — {r.xp} XP" for r in rows[:25]]
    title = {"week": "This week", "month": "This month"}.get(period, "All time")
    return fit(Reply(embed=Embed(title=f"Leaderboard · {title}", description="\n".join(lines)),
                     ephemeral=False, outcome="leaderboard"))


def user_settings(result, tracks, *, changed: bool = False) -> Reply:
    yes = lambda flag: "on" if flag else "off"  # noqa: E731
    preferred = tracks.get(result.preferred_track) if result.preferred_track else None
    lines = [
        f"**Timezone:** {result.timezone}",
        f"**Your track:** {f'{preferred.title} (`{preferred.id}`)' if preferred else 'none'} (what `/quiz` with no "
        "track uses; none: the server's daily track, else a mix of every track)",
        f"**Keep my answer texts:** {yes(result.keep_answers)} (typed or transcribed; off: only the score and bite "
        "are stored, and for a voice answer its delivery figures; a recording never is)",
        f"**Hide me from the leaderboard:** {yes(result.leaderboard_opt_out)}",
        f"**Reminders by DM:** {yes(result.reminders)} (when reviews are due or a streak is about to break)",
        "",
        "Change with `/settings timezone:Europe/Paris keep_answers:true leaderboard:false reminders:true "
        f"track:{next(iter(tracks), 'any')}` (`track:any` forgets it).",
        "",
        f"*Privacy:* when a graded answer offers **Grade as: …**, I hold its text for those buttons only, "
        f"for at most {DRAFTS_KEPT_AT_MOST.seconds // 60} minutes, whatever the setting above; one click uses it up. "
        "`/forget` deletes it with everything else. A voice answer's transcript waits the same way (at most "
        f"{HELD_MINUTES} minutes, your latest only) for **Grade it**; the recording itself is never stored.",
    ]
    return fit(Reply(embed=Embed(title="Settings updated" if changed else "Your settings", description="\n".join(lines)),
                     outcome="settings"))


def forget_confirm(nonce: str) -> Reply:
    return fit(Reply(content="This deletes **all** your data: progress, XP, streaks, reviews, attempts and settings. "
                     "It cannot be undone.", buttons=(Button("Delete my data", ids.forget(nonce), "danger", key="confirm"),),
                     outcome="confirm"))


# ----- daily posts -------------------------------------------------------------------------

def daily_post(pick, bite, yesterday=None, last_week=None) -> Reply:
    """The daily post: the bite, the question with A–D buttons, yesterday's results, and on
    the server's first day of the week the week before in words (its picture goes beside)."""
    q = pick.question
    fields = [Field("Today's question", f"{q.stem}\n\n{_options_block(q.options)}")]
    if yesterday is not None and yesterday.total:
        fields.append(Field("Yesterday", daily_results_line(yesterday)))
    if last_week is not None:
        fields.append(Field("Last week", week_summary(last_week)))
    embed = Embed(
        title=f"Daily bite · {bite.title}",
        description=f"*{bite.summary}*\n\n{bite.explainer}",
        fields=tuple(fields),
        footer=f"{pick.local_date:%A %d %B} · answer privately with the buttons",
        colour=BLUE,
    )
    buttons = [Button(LETTERS[i], ids.daily(pick.local_date, i), "primary", key=LETTERS[i].lower())
               for i in range(len(q.options))]
    buttons.append(Button("Explain it out loud", ids.explain(bite.id), "success", row=1))
    buttons.append(report_button("q", q.question_id, row=1))
    return fit(Reply(embed=embed, buttons=tuple(buttons), ephemeral=False, outcome="daily"))


def daily_results_line(results) -> str:
    best = max(range(len(results.counts)), key=lambda i: results.counts[i])
    right = results.shares[results.correct_choice] if results.correct_choice < len(results.shares) else 0.0
    spread = " · ".join(f"{LETTERS[i]} {100 * s:.0f}%" for i, s in enumerate(results.shares))
    return (f"{results.total} answered; {100 * results.shares[best]:.0f}% chose {LETTERS[best]}. "
            f"The answer was **{LETTERS[results.correct_choice]}** ({100 * right:.0f}% got it). {spread}")


def daily_answered(result) -> Reply:
    if result.outcome == "already_answered":
        return notice("You already answered today's question — it counted once.", outcome="already_answered")
    if result.outcome != "ok":
        return notice("That daily question is closed.", outcome=result.outcome)
    verdict = "✅ Right!" if result.correct else f"❌ Not quite — the answer is **{LETTERS[result.correct_choice]}**."
    text = f"{verdict}\n\n**Why:** {result.explanation or ''}" + (f"\n+{result.xp_gained} XP" if result.xp_gained else "")
    buttons = (Button("Read the bite", ids.read_bite(result.bite_id)),) if result.bite_id else ()
    return fit(Reply(content=text, buttons=buttons, outcome="daily_answered"))


def schedule(result, *, next_post=None) -> Reply:
    if result is None or not result.enabled:
        return notice("Daily posts are off in this server. An admin can turn them on with `/daily set`.")
    text = (f"Daily posts: <#{result.channel_id}> at {result.local_time:%H:%M} {result.timezone}, "
            f"track **{result.track}**. {WEEKDAYS[result.week_start]}'s post also shows the server's week.")
    if next_post is not None:
        text += f" Next post: <t:{int(next_post.timestamp())}:R>."
    return notice(text, outcome="schedule")

