"""The bot's behaviour, shared by Discord and the console: each handler takes the actor
and the command's options, calls a coach service, and returns a Reply. Handlers live by
capability (quiz, explain, progress, account, daily, and voice in bot/handlers/voice.py);
`Handlers` composes them and names the entry points the front ends call.

Buttons and modals come back through `press` and `submit` with their custom_id; the id
names the action and object (bot/actions.py maps it to its handler), the actor comes from
the interaction, and ownership is always checked against the store.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Mapping

from bot import custom_ids as ids
from bot.render import interview as interview_render
from bot.render import texts
from bot.actions import ACTIONS, SLOW_ACTIONS
from bot.handlers.account import AccountHandlers
from bot.handlers.base import Actor, replies_to_errors
from bot.handlers.daily import DailyHandlers
from bot.handlers.explain import ExplainHandlers
from bot.handlers.interview import InterviewHandlers
from bot.handlers.progress import Names, ProgressHandlers
from bot.handlers.quiz import QuizHandlers
from bot.render.replies import Reply, notice
from bot.handlers.voice import VoiceHandlers

if TYPE_CHECKING:
    from bot.command_table import Command
    from bot.services import Services

__all__ = ["Actor", "Handlers", "Names"]
log = logging.getLogger(__name__)


class Handlers:
    def __init__(self, services: "Services"):
        self.services = services
        self.coach = services.coach
        self.catalog = services.catalog
        self.quizzes = QuizHandlers(self)
        self.explaining = ExplainHandlers(self)
        self.progress = ProgressHandlers(self)
        self.account = AccountHandlers(self)
        self.daily = DailyHandlers(self)
        self.voice = VoiceHandlers(self)
        self.interviewing = InterviewHandlers(self)
        # The entry points the commands (bot/discord/commands.py), the console and the CLI call.
        self.quiz, self.review = self.quizzes.quiz, self.quizzes.review
        self.bite, self.explain = self.explaining.bite, self.explaining.explain
        self.find_bite, self.grade = self.explaining.find_bite, self.explaining.grade
        self.interview = self.interviewing.interview
        self.stats, self.leaderboard = self.progress.stats, self.progress.leaderboard
        self.week_picture, self.server_week = self.progress.week_picture, self.progress.server_week
        self.picture = self.progress.picture
        self.settings, self.forget, self.help = self.account.settings, self.account.forget, self.account.help
        self.daily_set, self.daily_off = self.daily.daily_set, self.daily.daily_off
        self.daily_preview, self.daily_answer = self.daily.daily_preview, self.daily.daily_answer

    def default_track(self) -> str:
        return next(iter(self.catalog.tracks))

    @staticmethod
    def is_slow(custom_id: str) -> bool:
        decoded = ids.decode(custom_id)
        return decoded is not None and decoded.action in SLOW_ACTIONS

    async def press(self, actor: Actor, custom_id: str) -> Reply:
        """A button click (or its console equivalent)."""
        decoded = ids.decode(custom_id)
        if decoded is None or ACTIONS[decoded.action].form:
            return notice(texts.BUTTON_GONE, outcome="invalid")
        return await self._dispatch(actor, decoded, {})

    async def submit(self, actor: Actor, custom_id: str, values: Mapping[str, str]) -> Reply:
        """A modal submission."""
        decoded = ids.decode(custom_id)
        if decoded is None or not ACTIONS[decoded.action].form:
            return notice(texts.FORM_GONE, outcome="invalid")
        return await self._dispatch(actor, decoded, values)

    async def command(self, command: "Command", actor: Actor, options: Mapping[str, object]) -> Reply:
        """A slash command (Discord's and the console's). An interview that ran out of time
        while the member was away is ended first and its outcome said above this command's
        reply, once; a reply to the channel or a form carries no such note (it waits)."""
        if command.name == "interview" or command.public or command.instant(options):
            return await command.run(self, actor, options)
        try:
            note = await self.interviewing.lapsed_note(actor)
        except Exception:  # the note is a courtesy: a store hiccup must not cost the command
            log.warning("could not check for a lapsed interview", exc_info=True)
            note = ""
        reply = await command.run(self, actor, options)
        return interview_render.with_note(reply, note) if note and reply.modal is None else reply

    @replies_to_errors
    async def _dispatch(self, actor: Actor, decoded: ids.Decoded, values: Mapping[str, str]) -> Reply:
        return await ACTIONS[decoded.action].run(self, actor, decoded, values)
