"""Quizzes and reviews: start one, answer, go on, stop."""

from __future__ import annotations

from dataclasses import replace

from bot.render import messages as render
from bot.render import texts
from bot.handlers.base import Actor, Capability, replies_to_errors
from bot.render.replies import Reply, notice
from coach.quiz.service import MIX_TRACK


class QuizHandlers(Capability):
    @replies_to_errors
    async def quiz(self, actor: Actor, track: str | None = None, count: int = 10) -> Reply:
        """With no track: the member's, else the server's, else a mix of every track."""
        track = track or await self.member_track(actor) or (MIX_TRACK if len(self.catalog.tracks) > 1
                                                             else self.default_track())
        refusal = None if track == MIX_TRACK else self.unknown_track(track)
        if refusal:
            return refusal
        return _started(await self.coach.quiz.start_quiz(actor.user_id, actor.guild_id, track, count))

    @replies_to_errors
    async def review(self, actor: Actor) -> Reply:
        result = await self.coach.quiz.start_review(actor.user_id, actor.guild_id)
        if result.session is None and result.conflict is None:
            return render.nothing_due(result.explain_again)
        return _started(result)

    async def quiz_bite(self, actor: Actor, bite_id: str) -> Reply:
        if bite_id not in self.catalog.bites:
            return notice(texts.BITE_GONE, outcome="not_found")
        return _started(await self.coach.quiz.start_bite_quiz(actor.user_id, actor.guild_id, bite_id))

    async def answer(self, actor: Actor, session: str, position: int, choice: int) -> Reply:
        if not session.isdigit():
            return notice(texts.QUIZ_GONE, outcome="not_found")
        # One transaction: the result carries the session as the click found it, so the reply
        # shows the answered question with its options next to the explanation.
        result = await self.coach.quiz.answer(actor.user_id, int(session), position, choice)
        if not result.counted:
            return render.answer_refused(result)
        return render.answered(result, result.state)

    async def next(self, actor: Actor, session: str, position: int) -> Reply:
        state = await self._owned_session(actor, session)
        if state is None:
            return notice(texts.QUIZ_NOT_YOURS, outcome="not_owner")
        if state.active and state.question is not None:
            return render.question(state)
        return render.summary(await self.coach.quiz.finish(state.session_id))

    async def stop(self, actor: Actor, session: str) -> Reply:
        state = await self._owned_session(actor, session)
        if state is None:
            return notice(texts.QUIZ_NOT_YOURS, outcome="not_owner")
        if state.active:
            await self.coach.quiz.abandon(actor.user_id, state.session_id)
        return render.summary(await self.coach.quiz.finish(state.session_id))

    async def _owned_session(self, actor: Actor, session: str):
        if not session.isdigit():
            return None
        state = await self.coach.quiz.get_session(int(session))
        return state if state is not None and state.user_id == actor.user_id else None


def _started(result) -> Reply:
    """A new session's first question, or the running one's where it was left."""
    if result.conflict is not None:
        return render.conflict(result.conflict)
    return replace(render.question(result.session), edit=False)

