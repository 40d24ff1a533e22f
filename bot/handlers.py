"""The bot's behaviour, shared by Discord and the console: each handler takes the
actor and the command's options, calls a coach service, and returns a Reply.

Buttons and modals come back through `press` and `submit` with their custom_id;
the id names the action and object, the actor comes from the interaction, and
ownership is always checked against the store.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace
from typing import Awaitable, Callable, Mapping, Sequence

from bot import custom_ids as ids
from bot import render
from bot.pictures import MapPicture, StatsPicture, WeekPicture
from bot.pictures.pool import PictureError
from bot.pictures.render import describe as describe_picture
from bot.replies import Attachment, Reply, notice
from bot.voice_handlers import VoiceHandlers
from bot.voice_render import with_delivery_history
from coach.daily.rules import next_post_time, parse_weekday
from coach.voice.history import delivery_history
from coach.errors import CoachError, InvalidRequest, NotFound, NotOwner
from coach.grading.models import GradeError, OffTopic
from coach.timeutil import local_date

log = logging.getLogger("coach.bot")

PERIODS = ("week", "month", "all")
STATS_VIEWS = ("progress", "map")
# (guild_id, user_ids) -> {user_id: display name}: names only the adapter knows.
Names = Callable[[int, Sequence[int]], Awaitable[Mapping[int, str]]]
SLOW_ACTIONS = {"regrade", "answer_modal", "voice_grade", "voice_modal"}  # grading: defer first


@dataclass(frozen=True)
class Actor:
    user_id: int
    guild_id: int = 0  # 0: a DM or the console
    name: str = ""
    can_manage_guild: bool = False
    request_id: str = ""  # the interaction id: makes a retried grading idempotent
    locale: str = ""  # the server's preferred locale (Discord), e.g. "en-US"
    can_attach: bool = True  # whether the bot may attach files where it answers
    channel_id: int = 0  # where it happened (a voice message answers an /explain of that channel)


class Handlers:
    def __init__(self, services):
        self.services = services
        self.coach = services.coach
        self.catalog = services.catalog
        self.voice = VoiceHandlers(self)

    # ----- quiz -------------------------------------------------------------------------
    def default_track(self) -> str:
        return next(iter(self.catalog.tracks))

    async def quiz(self, actor: Actor, track: str | None = None, count: int = 10) -> Reply:
        track = track or self.default_track()
        if track not in self.catalog.tracks:
            names = ", ".join(self.catalog.tracks)
            return notice(f"There is no track called {track!r}. Tracks: {names}.", outcome="invalid")
        try:
            result = await self.coach.quiz.start_quiz(actor.user_id, actor.guild_id, track, count)
        except InvalidRequest as error:
            return notice(f"{error}.", outcome="invalid")
        if result.conflict is not None:
            return render.conflict(result.conflict)
        reply = render.question(result.session)
        return replace(reply, edit=False)

    async def review(self, actor: Actor) -> Reply:
        result = await self.coach.quiz.start_review(actor.user_id, actor.guild_id)
        if result.conflict is not None:
            return render.conflict(result.conflict)
        if result.session is None:
            return render.nothing_due(result.explain_again)
        reply = render.question(result.session)
        return replace(reply, edit=False)

    async def _owned_session(self, actor: Actor, session: str):
        if not session.isdigit():
            return None
        state = await self.coach.quiz.get_session(int(session))
        return state if state is not None and state.user_id == actor.user_id else None

    async def _answer(self, actor: Actor, session: str, position: int, choice: int) -> Reply:
        if not session.isdigit():
            return notice("I can't find that quiz any more. Start a new one with `/quiz`.", outcome="not_found")
        # Read the question before answering: afterwards the session has moved on, and the
        # reply shows the answered question with its options next to the explanation.
        before = await self.coach.quiz.get_session(int(session))
        result = await self.coach.quiz.answer(actor.user_id, int(session), position, choice)
        if not result.counted:
            return render.answer_refused(result)
        question = before.question if before and before.question and before.question.position == position else None
        return render.answered(result, _with_question(before, question))

    async def _next(self, actor: Actor, session: str, position: int) -> Reply:
        state = await self._owned_session(actor, session)
        if state is None:
            return notice("That quiz isn't yours, or it is gone. Start your own with `/quiz`.", outcome="not_owner")
        if state.active and state.question is not None:
            return render.question(state)
        return render.summary(await self.coach.quiz.finish(state.session_id))

    async def _stop(self, actor: Actor, session: str) -> Reply:
        state = await self._owned_session(actor, session)
        if state is None:
            return notice("That quiz isn't yours, or it is gone.", outcome="not_owner")
        if state.active:
            try:
                await self.coach.quiz.abandon(actor.user_id, state.session_id)
            except (NotFound, NotOwner):
                return notice("That quiz isn't yours, or it is gone.", outcome="not_owner")
        return render.summary(await self.coach.quiz.finish(state.session_id))

    async def _quiz_bite(self, actor: Actor, bite_id: str) -> Reply:
        bite = self.catalog.bites.get(bite_id)
        if bite is None:
            return notice("I don't know that bite any more.", outcome="not_found")
        try:
            result = await self.coach.quiz.start_bite_quiz(actor.user_id, actor.guild_id, bite_id)
        except InvalidRequest as error:
            return notice(f"{error}.", outcome="invalid")
        if result.conflict is not None:
            return render.conflict(result.conflict)
        return replace(render.question(result.session), edit=False)

    # ----- bites and explanations -------------------------------------------------------
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
            bite, others = await self.find_bite(topic)
            if bite is None:
                return notice("I couldn't find a bite on that. Try other words, or `/bite` for today's.",
                              outcome="not_found")
            return render.bite(bite)
        return render.bite(self._todays_bite(actor), heading="Today's bite")

    def _todays_bite(self, actor: Actor):
        bites = list(self.catalog.bites.values())
        day = int(time.time() // 86400)
        return bites[(day + actor.guild_id) % len(bites)]

    async def explain(self, actor: Actor, topic: str | None = None) -> Reply:
        if not topic or not topic.strip():
            return render.answer_modal(None, max_chars=self.services.settings.answer_max_chars)
        bite, _ = await self.find_bite(topic)
        if bite is None:
            return notice("I couldn't find a bite on that. Try `/explain` with no topic and just answer.",
                          outcome="not_found")
        return await self.voice.prompt_opened(actor, bite, render.explain_prompt(bite))

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
            return notice("Grading is unavailable right now, sorry — your answer was not stored. Try again later.",
                          outcome="grading_unavailable"), False
        use = await self.services.explain_cooldown.spend_use(actor.user_id)
        if not use.spent:
            return notice(
                f"Grading takes a while, so I keep it to {self.services.settings.explain_rate_limit} explanations "
                f"every {self.services.settings.explain_rate_window_s // 60 or 1} minutes. "
                f"Take a breath and try again in {int(use.retry_after_s) + 1} seconds.",
                outcome="cooldown",
            ), False
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

    async def _regrade(self, actor: Actor, bite_id: str, token: str) -> Reply:
        bite = self.catalog.bites.get(bite_id)
        if bite is None:
            return notice("I don't know that bite any more.", outcome="not_found")
        draft = await self.services.drafts.take(actor.user_id, token)
        if draft is None:  # expired, used already, or not this user's answer: ask again
            return render.answer_modal(bite, max_chars=self.services.settings.answer_max_chars)
        reply, graded = await self._grade(actor, draft.text, bite_id)
        if not graded:  # the click did not use the draft: keep it for a later click
            await self.services.drafts.give_back(actor.user_id, draft)
        return reply

    # ----- progress and account ----------------------------------------------------------
    async def stats(self, actor: Actor, view: str = "progress", track: str | None = None) -> Reply:
        """`/stats`: the text summary with the progress picture beside it; `view:map`, the
        bite map of a track."""
        name = actor.name or "you"
        if view == "map":
            track = track or self.default_track()
            if track not in self.catalog.tracks:
                names = ", ".join(self.catalog.tracks)
                return notice(f"There is no track called {track!r}. Tracks: {names}.", outcome="invalid")
            mapping = await self.coach.history.mastery_map(actor.user_id, track)
            return await self._with_picture(render.bite_map(mapping), MapPicture(name, mapping), actor)
        if view not in STATS_VIEWS:
            return notice(f"view must be one of: {', '.join(STATS_VIEWS)}.", outcome="invalid")
        stats = await self.coach.progress.stats(actor.user_id, actor.guild_id)
        history = await self.coach.history.progress_history(actor.user_id)
        reply = with_delivery_history(render.stats(stats), await delivery_history(self.services.store, actor.user_id))
        return await self._with_picture(reply, StatsPicture(name, stats, history), actor)

    async def week_picture(self, guild_id: int, start, server: str, resolve_names: Names):
        """The server's week that begins on `start` and its picture (None when it could not be
        drawn): for the daily post on the server's first day of the week, and `coach stats --week`."""
        week = await self.coach.history.guild_week(guild_id, start)
        names = await resolve_names(guild_id, [row.user_id for row in week.leaders]) if week.leaders else {}
        return week, await self.picture(WeekPicture(server, week, dict(names)))

    async def server_week(self, actor: Actor, server: str, resolve_names: Names, start=None) -> Reply:
        """The server's last whole week (or the one beginning on `start`) as a reply."""
        week, attachment = await self.week_picture(actor.guild_id, start, server, resolve_names)
        reply = render.server_week(week)
        return replace(reply, attachment=attachment) if attachment else render.picture_missing(reply)

    async def picture(self, data) -> Attachment | None:
        """The picture as an attachment with its description; None when it could not be drawn
        (the reply then goes without it)."""
        try:
            png = await self.services.pictures.render(data)
        except PictureError as error:
            log.warning("picture left out", extra={"reason": str(error)})
            return None
        return Attachment(data.filename, png, describe_picture(data))

    async def _with_picture(self, reply: Reply, data, actor: Actor) -> Reply:
        if not actor.can_attach:
            return render.picture_missing(reply, "I may not attach files here (an admin can grant *Attach Files*).")
        attachment = await self.picture(data)
        return replace(reply, attachment=attachment) if attachment else render.picture_missing(reply)

    async def leaderboard(self, actor: Actor, period: str = "week", names: dict | None = None) -> Reply:
        if period not in PERIODS:
            return notice("period must be week, month or all.", outcome="invalid")
        if not actor.guild_id:
            return notice("The leaderboard is per server; use it in a server.", outcome="invalid")
        rows = await self.coach.progress.leaderboard(actor.guild_id, period)
        return render.leaderboard(rows, period, names=names)

    async def settings(self, actor: Actor, **changes) -> Reply:
        changes = {k: v for k, v in changes.items() if v is not None}
        if "leaderboard" in changes:  # the option reads "show me"; the store keeps the opt-out
            changes["leaderboard_opt_out"] = not changes.pop("leaderboard")
        if not changes:
            return render.user_settings(await self.coach.account.get_settings(actor.user_id))
        try:
            result = await self.coach.account.update_settings(actor.user_id, **changes)
        except InvalidRequest as error:
            return notice(f"{error}", outcome="invalid")
        return render.user_settings(result, changed=True)

    async def forget(self, actor: Actor) -> Reply:
        return render.forget_confirm(await self.coach.account.ask_to_forget(actor.user_id))

    async def _forget_confirmed(self, actor: Actor, code: str) -> Reply:
        if await self.coach.account.forget_confirmed(actor.user_id, code) is None:
            return notice("That confirmation isn't yours or has expired. Run `/forget` again.", outcome="refused")
        return notice("Done: everything I stored about you is deleted.", outcome="forgotten", edit=True)

    async def help(self, actor: Actor, console: bool = False) -> Reply:
        return render.help_text(console=console)

    async def _report(self, actor: Actor, kind: str, item_id: str, note: str) -> Reply:
        known = self.catalog.questions if kind == "q" else self.catalog.bites
        if item_id not in known:
            return notice("I don't know that item any more.", outcome="not_found")
        note = (note or "").strip()
        if not note:
            return notice("Please say what is wrong, so a maintainer can fix it.", outcome="invalid")
        await self.coach.account.report(actor.user_id, actor.guild_id, item_id, note[:1000])
        return notice("Thanks — your report is stored and a maintainer will look at it.", outcome="reported")

    # ----- buttons and modals ------------------------------------------------------------
    @staticmethod
    def is_slow(custom_id: str) -> bool:
        decoded = ids.decode(custom_id)
        return decoded is not None and decoded.action in SLOW_ACTIONS

    async def press(self, actor: Actor, custom_id: str) -> Reply:
        """A button click (or its console equivalent)."""
        d = ids.decode(custom_id)
        if d is None:
            return notice("That button is no longer valid.", outcome="invalid")
        try:
            return await self._press(actor, d)
        except (NotFound, NotOwner):
            return notice("That isn't available to you.", outcome="refused")
        except CoachError as error:
            return notice(f"{error}", outcome="invalid")

    async def _press(self, actor: Actor, d) -> Reply:
        if d.action == "answer":
            return await self._answer(actor, d.session, d.position, d.choice)
        if d.action == "next":
            return await self._next(actor, d.session, d.position)
        if d.action == "stop":
            return await self._stop(actor, d.session)
        if d.action == "read":
            bite = self.catalog.bites.get(d.bite)
            return render.bite(bite) if bite else notice("I don't know that bite any more.", outcome="not_found")
        if d.action == "quiz_bite":
            return await self._quiz_bite(actor, d.bite)
        if d.action == "explain":
            bite = self.catalog.bites.get(d.bite)
            if bite is None:
                return notice("I don't know that bite any more.", outcome="not_found")
            return render.answer_modal(bite, max_chars=self.services.settings.answer_max_chars)
        if d.action == "regrade":
            return await self._regrade(actor, d.bite, d.draft)
        if d.action == "report":
            return render.report_modal(d.kind, d.item)
        if d.action == "daily":
            return await self.daily_answer(actor, d.day, d.choice)
        if d.action == "forget":
            return await self._forget_confirmed(actor, d.nonce)
        if d.action in ("voice_grade", "voice_fix"):
            return await self.voice.press(actor, d)
        return notice("That button is no longer valid.", outcome="invalid")

    async def submit(self, actor: Actor, custom_id: str, values: dict[str, str]) -> Reply:
        """A modal submission."""
        d = ids.decode(custom_id)
        if d is None or d.action not in ("answer_modal", "report_modal", "voice_modal"):
            return notice("That form is no longer valid.", outcome="invalid")
        if d.action == "voice_modal":
            return await self.voice.submit(actor, d, values)
        if d.action == "report_modal":
            return await self._report(actor, d.kind, d.item, values.get("note", ""))
        answer = values.get("answer", "")
        if d.bite is not None and d.bite not in self.catalog.bites:
            return notice("I don't know that bite any more.", outcome="not_found")
        return await self.grade(actor, answer, d.bite)

    # ----- daily posts -------------------------------------------------------------------
    @staticmethod
    def _refuse_non_admin(actor: Actor) -> Reply | None:
        if not actor.guild_id:
            return notice("Daily posts are set per server; run this in a server.", outcome="invalid")
        if not actor.can_manage_guild:
            return notice("Only members with the **Manage Server** permission can change daily posts.",
                          outcome="refused")
        return None

    async def daily_set(self, actor: Actor, channel_id: int, time_text: str, timezone: str,
                        track: str | None = None, week_starts: str | None = None) -> Reply:
        """`week_starts`: the server's first day of the week (the weekly picture's day); by
        default the one usual for the server's locale, or what it was."""
        refusal = self._refuse_non_admin(actor)
        if refusal:
            return refusal
        try:
            week_start = parse_weekday(week_starts) if week_starts else None
        except ValueError as error:
            return notice(f"{error}.", outcome="invalid")
        try:
            schedule = await self.coach.daily.set_schedule(actor.guild_id, channel_id, time_text, timezone,
                                                     track or self.default_track(), week_start=week_start,
                                                     locale=actor.locale or None)
        except InvalidRequest as error:
            return notice(f"{error}", outcome="invalid")
        return render.schedule(schedule, next_post=next_post_time(schedule, self.coach.now()))

    async def daily_off(self, actor: Actor) -> Reply:
        refusal = self._refuse_non_admin(actor)
        if refusal:
            return refusal
        had = await self.coach.daily.disable_schedule(actor.guild_id)
        return notice("Daily posts are off." if had else "Daily posts were not on.", outcome="schedule_off")

    async def daily_preview(self, actor: Actor) -> Reply:
        """What today's post looks like (the pick is the real one; nothing is sent)."""
        refusal = self._refuse_non_admin(actor)
        if refusal:
            return refusal
        schedule = await self.coach.daily.get_schedule(actor.guild_id)
        track = schedule.track if schedule else self.default_track()
        day = local_date(self.coach.now(), schedule.timezone if schedule else "UTC")
        pick = await self.coach.daily.pick_daily(actor.guild_id, day, track)
        post = render.daily_post(pick, self.catalog.bites[pick.bite_id])
        intro = render.schedule(schedule).content
        return replace(post, content=f"Preview (only you see this). {intro}", ephemeral=True, outcome="preview")

    async def daily_answer(self, actor: Actor, day, choice: int) -> Reply:
        if not actor.guild_id:
            return notice("Daily questions are answered in their server.", outcome="invalid")
        result = await self.coach.daily.record_daily_answer(actor.guild_id, day, actor.user_id, choice)
        return render.daily_answered(result)


def _with_question(state, question):
    """`state` with `question` as its current question (for rendering the answered one)."""
    if state is None or question is None:
        return state
    from dataclasses import replace

    return replace(state, question=question)
