"""Bites and explanations: read a bite, open the answer box, grade an answer (typed, or a
voice transcript through bot/handlers/voice.py), and grade it again as another bite."""

from __future__ import annotations

import asyncio
import logging
import time

from bot.render import messages as render
from bot.render import texts
from bot.handlers.base import Actor, Capability
from bot.render.replies import Reply, notice
from coach.grading.models import GradeError, OffTopic

log = logging.getLogger("coach.bot")


class ExplainHandlers(Capability):
    async def find_bite(self, topic: str):
        """The best bite for free-form topic words: an exact id or title first, then retrieval."""
        text = topic.strip().lower()
        slug = "-".join(text.split())
        if slug in self.catalog.bites:
            return self.catalog.bites[slug], ()
        for bite in self.catalog.bites.values():
            if bite.title.lower() == text:
                return bite, ()
        topics = await self.services.topics()
        found = await asyncio.to_thread(topics.find, topic, 4)
        if not found.results:
            return None, ()
        best = found.results[0]
        return self.catalog.bites.get(best.bite_id), tuple(found.results[1:])

    async def bite(self, actor: Actor, topic: str | None = None) -> Reply:
        if topic and topic.strip():
            bite, _ = await self.find_bite(topic)
            if bite is None:
                return notice(texts.NO_BITE_FOUND, outcome="not_found")
            return render.bite(bite)
        return render.bite(await self._todays_bite(actor), heading=texts.TODAYS_BITE)

    async def _todays_bite(self, actor: Actor):
        """A bite a day, the same all day for a server's members who share a track: from the
        member's track (theirs, else the server's daily track), else from every track."""
        track = await self.member_track(actor)
        bites = list(self.catalog.tracks[track].bites) if track else list(self.catalog.bites.values())
        day = int(time.time() // 86400)
        return bites[(day + actor.guild_id) % len(bites)]

    async def read(self, bite_id: str) -> Reply:
        bite = self.catalog.bites.get(bite_id)
        return render.bite(bite) if bite else notice(texts.BITE_GONE, outcome="not_found")

    async def explain(self, actor: Actor, topic: str | None = None) -> Reply:
        if not topic or not topic.strip():
            return render.answer_modal(None, max_chars=self.services.settings.answer_max_chars)
        bite, _ = await self.find_bite(topic)
        if bite is None:
            return notice(texts.NO_BITE_TO_GRADE, outcome="not_found")
        return await self.hub.voice.prompt_opened(actor, bite, render.explain_prompt(bite))

    async def open_answer(self, bite_id: str) -> Reply:
        """The answer box for a bite ("Explain it out loud", "Try again")."""
        bite = self.catalog.bites.get(bite_id)
        if bite is None:
            return notice(texts.BITE_GONE, outcome="not_found")
        return render.answer_modal(bite, max_chars=self.services.settings.answer_max_chars)

    async def submit_answer(self, actor: Actor, bite_id: str | None, answer: str) -> Reply:
        if bite_id is not None and bite_id not in self.catalog.bites:
            return notice(texts.BITE_GONE, outcome="not_found")
        return await self.grade(actor, answer, bite_id)

    async def grade(self, actor: Actor, answer: str, bite_id: str | None, *, spoken=None,
                    attempt_key: str | None = None, held: str | None = None) -> Reply:
        """`spoken`: a voice answer (`answer` is its transcript); `attempt_key` overrides the
        interaction's own (a held transcript is one attempt however often it is confirmed);
        `held`: the answer is already held under this token (a voice transcript), so no draft
        is kept and "Grade as" buttons carry the token."""
        reply, _ = await self._grade(actor, answer, bite_id, spoken=spoken, attempt_key=attempt_key, held=held)
        return reply

    async def _grade(self, actor: Actor, answer: str, bite_id: str | None, *, spoken=None,
                     attempt_key: str | None = None, held: str | None = None) -> tuple[Reply, bool]:
        """The reply, and whether a grading ran (False: grading unavailable, the cool-down, or
        input that cannot be graded; then no use of the cool-down is spent)."""
        try:
            grader = await self.services.grader()
        except Exception:
            log.exception("grader failed to load")
            grader = None
        if grader is None:  # nothing ran, so no use of the cool-down is spent
            return notice(texts.GRADING_UNAVAILABLE, outcome="grading_unavailable"), False
        async with self.services.grading_queue.slot() as admitted:
            if not admitted:  # too many gradings in this process: a fast "busy" beats a slow grade
                return notice(texts.GRADING_BUSY, outcome="grading_busy"), False
            return await self._grade_admitted(grader, actor, answer, bite_id, spoken=spoken,
                                              attempt_key=attempt_key, held=held)

    async def _grade_admitted(self, grader, actor: Actor, answer: str, bite_id: str | None, *, spoken,
                              attempt_key: str | None, held: str | None) -> tuple[Reply, bool]:
        use = await self.services.explain_cooldown.spend_use(actor.user_id)
        if not use.spent:
            settings = self.services.settings
            text = texts.cooldown(settings.explain_rate_limit, settings.explain_rate_window_s, use.retry_after_s)
            return notice(text, outcome="cooldown"), False
        if attempt_key is None and actor.request_id:
            attempt_key = f"{actor.request_id}:{bite_id or '-'}"
        result = await grader.grade_and_record(self.coach.progress, actor.user_id, actor.guild_id, answer, bite_id,
                                               attempt_key, spoken=spoken)
        if isinstance(result, GradeError):  # input that could not be graded: the use is given back
            await self.services.explain_cooldown.refund(use)
            return notice(result.message, outcome=result.error), False
        # The answer is kept (briefly) only when the reply offers to grade it as another bite.
        if isinstance(result, OffTopic):
            draft = held or (await self.services.drafts.keep(actor.user_id, answer) if result.suggestions else None)
            return render.off_topic(result, draft=draft), True
        others = [alt for alt in result.alternatives if alt.bite_id != result.bite_id]
        draft = held or (await self.services.drafts.keep(actor.user_id, answer) if others else None)
        # The pipeline's own retrieval supplies the "grade as another bite" choices: no second search.
        return render.grade(result, draft=draft, alternatives=result.alternatives, retrieved=bite_id is None), True

    async def regrade(self, actor: Actor, bite_id: str, token: str) -> Reply:
        bite = self.catalog.bites.get(bite_id)
        if bite is None:
            return notice(texts.BITE_GONE, outcome="not_found")
        draft = await self.services.drafts.take(actor.user_id, token)
        if draft is None:  # expired, used already, or not this user's answer: ask again
            return render.answer_modal(bite, max_chars=self.services.settings.answer_max_chars)
        reply, graded = await self._grade(actor, draft.text, bite_id)
        if not graded:  # the click did not use the draft: keep it for a later click
            await self.services.drafts.give_back(actor.user_id, draft)
        return reply
