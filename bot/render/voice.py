"""Voice answers as Replies: the transcript shown first, the refusals, the fix modal, the
delivery line under a grade and the delivery trend in /stats. Pure, like render.py."""

from __future__ import annotations

from dataclasses import replace

from bot import custom_ids as ids
from bot.render.limits import INPUT_VALUE, clip, fit
from bot.render.replies import Button, Embed, Field, Modal, Reply, TextInput, notice
from coach.voice.delivery import LONG_PAUSE_SECONDS, TARGET_SECONDS

HELD_MINUTES = 15  # at most this long a transcript waits for "Grade it" (bot/handlers/voice.py)
PROMPT_MINUTES = 15  # how long after /explain a voice message answers its prompt

NO_INTERVIEW = "You have no interview open. Start one with `/interview`."
RETRY_INTERVIEW = "Send another voice message, or press **Answer** and type it."


def transcript(token: str, spoken, bite=None, suggestions=(), *, ephemeral: bool = True) -> Reply:
    """The transcript to confirm: "Grade it", "Fix the transcript", and with no bite known the
    closest bites to grade it as."""
    if bite is not None:
        target = f"Graded against **{bite.title}**."
    elif suggestions:
        target = ("Which bite is this answer for? Pick one below, or press **Grade it** and I'll find it "
                  "from your answer.")
    else:
        target = "I'll find the bite from your answer."
    lines = [f"> {clip(spoken.transcript, 3500)}", "", target,
             "Speech recognition mishears terms now and then: fix the transcript if it got yours wrong."]
    embed = Embed(title="Your answer, as I heard it", description="\n".join(lines),
                  footer=f"I keep this transcript at most {HELD_MINUTES} minutes, to grade it; the recording is never "
                         "stored.")
    buttons = [Button("Grade it", ids.voice_grade(token), "success", key="grade"),
               Button("Fix the transcript", ids.voice_fix(token), key="fix")]
    if bite is None:
        buttons += [Button(f"Grade as: {s.title}", ids.voice_grade(token, s.bite_id), row=1)
                    for s in suggestions[:3]]
    return fit(Reply(embed=embed, buttons=tuple(buttons), ephemeral=ephemeral, outcome="transcript",
                     extra={"token": token, "bite_id": bite.id if bite else None}))


def no_prompt_intro(reply: Reply) -> Reply:
    """A DM voice message with no /explain prompt open: say so above the transcript."""
    text = (f"I found no `/explain` prompt of yours from the last {PROMPT_MINUTES} minutes, so I don't know "
            "which bite you are answering.")
    return replace(reply, content=text, outcome="transcript_which_bite")


def fix_modal(token: str, text: str) -> Reply:
    box = TextInput("transcript", "Your answer, as it should read", paragraph=True, max_length=INPUT_VALUE,
                    value=clip(text, INPUT_VALUE))
    return fit(Reply(modal=Modal("Fix the transcript", ids.voice_modal(token), (box,))))


def refused(message: str, code: str, retry: str) -> Reply:
    """A recording that cannot be used: why, and how to try again (nothing was lost)."""
    return notice(f"{message}\n{retry}", outcome=f"voice_refused:{code}")


def not_audio(content_type: str) -> str:
    return (f"That file is `{clip(content_type, 60)}`, not audio. Send a voice message or a common audio "
            "file (ogg, mp3, m4a, wav, webm).")


DOWNLOAD_FAILED = "I couldn't download that recording from Discord."
STILL_LISTENING = "I'm still transcribing your last recording — one moment, then send the next."
HELD_GONE = ("That transcript isn't one I'm holding for you: I keep only your latest, for {minutes} minutes, "
             "and never the recording. Send the recording again to answer.")


def held_gone() -> Reply:
    return notice(HELD_GONE.format(minutes=HELD_MINUTES), outcome="voice_expired")


def voice_hint(reply: Reply) -> Reply:
    """The /explain prompt, with the ways to answer out loud."""
    if reply.embed is None:
        return reply
    extra = (f"\n\nOr answer out loud: send me a **voice message** (in a DM to me) within {PROMPT_MINUTES} "
             "minutes, or run `/explain` with the `audio:` option and a recording.")
    return fit(replace(reply, embed=replace(reply.embed, description=reply.embed.description + extra)))


# ----- delivery under a grade, and over time in /stats -----------------------------------

def delivery_field(delivery) -> Field:
    """One compact field: speaking time against the target, pace, fillers (a floor), long
    pauses, the first sentence, then the coaching notes."""
    d = delivery
    pauses = f"{d.long_pauses} pause{'s' if d.long_pauses != 1 else ''} of {LONG_PAUSE_SECONDS:.0f} s+"
    lines = [f"🕒 {d.speaking_s:.0f} s of speech (target {d.target_s} s) · {d.wpm:.0f} words/min · {pauses}",
             f"Fillers: {d.fillers_per_min:.1f}/min ({d.fillers} heard; a floor: speech recognition misses some)"]
    if d.opens_with_core_point is not None:
        lines.append("✅ Your first sentence made a core point." if d.opens_with_core_point
                     else "➖ Your first sentence made no core point yet: lead with it.")
    lines += [f"• {note}" for note in d.notes]
    return Field("How you said it", "\n".join(lines))


def with_delivery_history(reply: Reply, history) -> Reply:
    """/stats: the voice answers' figures over time, when there are any."""
    if not history.answers or reply.embed is None:
        return reply
    rows = [f"• {p.created_at:%d %b}: {p.speaking_s:.0f} s, {p.wpm:.0f} wpm, {p.fillers_per_min:.1f} fillers/min, "
            f"{p.long_pauses} long pause{'s' if p.long_pauses != 1 else ''}" for p in history.recent]
    lines = [f"{history.answers} voice answer{'s' if history.answers != 1 else ''}; the latest first:", *rows]
    latest, first = (history.recent[0] if history.recent else None), history.first
    if latest is not None and first is not None and history.answers > 1:
        lines.append(f"Since your first: fillers {first.fillers_per_min:.1f} → {latest.fillers_per_min:.1f}/min, "
                     f"pace {first.wpm:.0f} → {latest.wpm:.0f} wpm, speaking {first.speaking_s:.0f} → "
                     f"{latest.speaking_s:.0f} s (target {TARGET_SECONDS}).")
    yes, judged = history.opened_with_core_point
    if judged:
        lines.append(f"Opened with a core point: {yes} of the last {judged}.")
    embed = replace(reply.embed, fields=(*reply.embed.fields, Field("Delivery (voice answers)", "\n".join(lines))))
    return fit(replace(reply, embed=embed))
