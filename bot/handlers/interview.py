"""`/interview`: a mock interview, turn by turn (coach/interview/flow.py runs it; this only
checks the limits and renders). Every button names the interview and the turn it answers,
so a second press, an old message or another member's click changes nothing."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.handlers.base import Actor, Capability
from bot.handlers.voice import PROMPT_KIND
from bot.pictures import ScorecardPicture
from bot.render import interview as render
from bot.render import texts
from bot.render.replies import Reply, notice
from coach.interview.flow import DEFAULT_QUESTIONS, InterviewFlow

log = logging.getLogger("coach.bot")

ALREADY_OPEN = "You have an interview open — here is where it stands. Answer, pass, or end it first.\n\n"
ANSWERED_ALREADY = "That turn is answered already; here is where the interview stands.\n\n"


class InterviewHandlers(Capability):
    async def _flow(self) -> InterviewFlow | None:
        try:
            grader = await self.services.grader()
        except Exception:
            log.exception("grader failed to load")
            return None
        return InterviewFlow(self.coach, grader) if grader is not None else None

    async def interview(self, actor: Actor, topic: str | None = None, track: str | None = None,
                        questions: int | None = None) -> Reply:
        track = track or self.default_track()
        refused = self.unknown_track(track)
        if refused is not None:
            return refused
        flow = await self._flow()
        if flow is None:
            return notice(texts.GRADING_UNAVAILABLE, outcome="grading_unavailable")
        current = await flow.open_for(actor.user_id)
        if current is not None and current.outcome == "asked":
            return render.asking(current, flow.question_text(current.state), note=ALREADY_OPEN)
        # It ran out of time since the member last looked: say how it went.
        lapsed = render.lapsed_note(current.scorecard) + "\n\n" if current is not None else ""
        first = None
        if topic and topic.strip():
            bite, _ = await self.hub.find_bite(topic)
            if bite is None or bite.track != track:
                return notice(texts.NO_BITE_FOUND, outcome="not_found")
            first = bite.id
        use = await self.services.interview_cooldown.spend_use(actor.user_id)
        if not use.spent:
            return notice(texts.interview_cooldown(self.services.settings.interview_rate_limit,
                                                   self.services.settings.interview_rate_window_s, use.retry_after_s),
                          outcome="cooldown")
        step = await flow.start(actor.user_id, actor.guild_id, track, questions or DEFAULT_QUESTIONS, first)
        if step.outcome == "already_open":  # opened elsewhere a moment ago
            await self.services.interview_cooldown.refund(use)
            return render.asking(step, flow.question_text(step.state), note=ALREADY_OPEN)
        # A DM voice message now answers nothing of /explain's: the interview holds the member.
        await self.services.store.delete_state(PROMPT_KIND, str(actor.user_id))
        return render.asking(step, flow.question_text(step.state), note=lapsed)

    async def lapsed_note(self, actor: Actor) -> str:
        """If the member's interview ran out of time since they last looked, end it and say how
        it went (once: whoever ends it says it)."""
        lapsed = await self.coach.interviews.lapse(actor.user_id)
        return render.lapsed_note(InterviewFlow(self.coach, None).scorecard(lapsed)) if lapsed is not None else ""

    async def open_answer(self, actor: Actor, interview_id: int, turn: int) -> Reply:
        state = await self.coach.interviews.get(interview_id, actor.user_id)  # NotOwner: not theirs
        flow = InterviewFlow(self.coach, None)
        if not state.open or state.turn != turn:
            return await self._show(flow, flow.where(state), actor)
        return render.answer_modal(state, flow.question_text(state), max_chars=self.services.settings.answer_max_chars)

    async def submit(self, actor: Actor, interview_id: int, turn: int, text: str) -> Reply:
        flow = await self._flow()
        if flow is None:
            return notice(texts.GRADING_UNAVAILABLE, outcome="grading_unavailable")
        # A member mid-interview goes before a waiting /explain (coach/grading/admission.py). The
        # slot covers the grading only: the reply (a finished interview's scorecard picture is
        # drawn in the picture pool) is made after it is given back, so no /explain waits for it.
        async with self.services.grading_queue.slot(urgent=True) as admitted:
            step = await flow.answer(actor.user_id, interview_id, turn, text) if admitted else None
        if step is not None:
            return await self._show(flow, step, actor)
        # The queue was full: the turn stays open and the member answers it again.
        step = flow.where(await self.coach.interviews.get(interview_id, actor.user_id))
        if step.outcome == "finished":
            return await self._show(flow, step, actor)
        return render.asking(step, flow.question_text(step.state), note=texts.GRADING_BUSY + "\n\n")

    async def pass_turn(self, actor: Actor, interview_id: int, turn: int) -> Reply:
        flow = InterviewFlow(self.coach, None)  # passing grades nothing
        return await self._show(flow, await flow.pass_turn(actor.user_id, interview_id, turn), actor)

    async def end(self, actor: Actor, interview_id: int) -> Reply:
        flow = InterviewFlow(self.coach, None)
        return await self._show(flow, await flow.end(actor.user_id, interview_id), actor)

    async def _show(self, flow: InterviewFlow, step, actor: Actor) -> Reply:
        if step.outcome == "finished":
            reply = render.scorecard(step.scorecard, grader=step.grader)
            if not actor.can_attach or step.scorecard.signal is None:
                return reply
            attachment = await self.hub.progress.picture(ScorecardPicture(actor.name or "you", step.scorecard))
            return replace(reply, attachment=attachment) if attachment else reply
        return self._asking(flow, step)

    @staticmethod
    def _asking(flow: InterviewFlow, step) -> Reply:
        if step.outcome == "bad_input":
            return render.asking(step, flow.question_text(step.state), note=f"{step.message}\n\n")
        note = ANSWERED_ALREADY if step.outcome == "duplicate" else ""
        return render.asking(step, flow.question_text(step.state), note=note)
