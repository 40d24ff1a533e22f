"""The input tables (bot/actions.py, bot/command_table.py) are the only lists: every
button and form has a handler and an id that round-trips, Discord and the console offer
exactly the table's commands, /help names each, and a domain error reads the same way
whichever handler raised it."""

from __future__ import annotations

import asyncio
import io
import re
from datetime import date
from types import SimpleNamespace

import discord
import pytest
from discord import app_commands

from bot import custom_ids as ids
from bot.render import messages as render
from bot.render import texts
from bot.actions import ACTIONS, BUTTON_ACTIONS, FORM_ACTIONS, MODAL_OPENERS, SLOW_ACTIONS
from bot.command_table import BY_NAME, COMMANDS, GROUPS
from bot.console.chat import Console
from bot.handlers import Actor, Handlers
from bot.render.replies import notice
from bot.discord.views import BUTTON_TEMPLATE
from coach.errors import InvalidRequest, NotOwner
from content import default_catalog

# One id of each kind, made by the codec's own encoders.
SAMPLES = {
    "answer": ids.answer("12", 3, 1), "next": ids.next_question("12", 3), "stop": ids.stop("12"),
    "read": ids.read_bite("kv-cache"), "quiz_bite": ids.quiz_bite("kv-cache"), "explain": ids.explain("kv-cache"),
    "regrade": ids.regrade("kv-cache", "0123abcd"), "report": ids.report("q", "kv-cache-1"),
    "daily": ids.daily(date(2026, 12, 2), 2), "forget": ids.forget("abc123"), "answer_modal": ids.answer_modal(None),
    "report_modal": ids.report_modal("b", "kv-cache"), "voice_grade": ids.voice_grade("0123456789ab", "kv-cache"),
    "voice_fix": ids.voice_fix("0123456789ab"), "voice_modal": ids.voice_modal("0123456789ab"),
    "interview_answer": ids.interview_answer(41, 2), "interview_pass": ids.interview_pass(41, 2),
    "interview_end": ids.interview_end(41), "interview_modal": ids.interview_modal(41, 2),
}
ADMIN = Actor(user_id=7, guild_id=70, can_manage_guild=True)


def test_every_action_has_a_handler_an_id_format_and_a_round_trip():
    assert set(ACTIONS) == set(ids.TEMPLATES) == set(SAMPLES)
    for action, custom_id in SAMPLES.items():
        assert ids.decode(custom_id).action == action and callable(ACTIONS[action].run)


def test_the_derived_lists_follow_the_table():
    assert set(BUTTON_ACTIONS) | set(FORM_ACTIONS) == set(ACTIONS) and not set(BUTTON_ACTIONS) & set(FORM_ACTIONS)
    assert MODAL_OPENERS <= set(BUTTON_ACTIONS) and not MODAL_OPENERS & SLOW_ACTIONS
    for action, custom_id in SAMPLES.items():  # the one dynamic button routes every button, and no form
        assert bool(re.fullmatch(BUTTON_TEMPLATE, custom_id)) == (action in BUTTON_ACTIONS)
        assert Handlers.is_slow(custom_id) == (action in SLOW_ACTIONS)


def registered_names(track_ids=("inference",)) -> set[str]:
    from bot.discord import commands

    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    commands.register(tree, adapter=None, handlers=None, track_ids=list(track_ids))
    return {c.qualified_name for c in tree.walk_commands() if isinstance(c, app_commands.Command)}


def test_discord_registers_exactly_the_tables_commands():
    assert registered_names() == {c.name for c in COMMANDS}


class Recorder:
    """Handlers that record which entry point a command reached."""

    def __init__(self, tmp_path):
        self.services = SimpleNamespace(settings=SimpleNamespace(data_dir=tmp_path))
        self.called = []

    async def command(self, command, actor, options):
        """As `Handlers.command`, less the lapsed-interview note (no store here)."""
        return await command.run(self, actor, options)

    def __getattr__(self, name):
        async def handler(actor, *args, **kwargs):
            self.called.append(name)
            return notice(f"ran {name}")
        return handler


def test_the_console_offers_exactly_the_tables_commands(tmp_path):
    handlers = Recorder(tmp_path)
    out = io.StringIO()
    console = Console(handlers, stdin=io.StringIO(), stdout=out)
    offered = set()
    for command in COMMANDS:
        handlers.called.clear()
        required = " ".join(f"{o.name}:x" for o in command.options if o.required)
        asyncio.run(console.command(f"/{command.name} {required}"))
        if handlers.called:
            offered.add(command.name)
            assert handlers.called == [command.name.replace(" ", "_")]
    assert offered == {c.name for c in COMMANDS if c.console}
    for group in GROUPS:
        asyncio.run(console.command(f"/{group}"))
        assert f"/{group} needs one of: /{group} set," in out.getvalue()
    asyncio.run(console.command("/daily set time:09:00"))
    assert "/daily set needs channel:" in out.getvalue()
    asyncio.run(console.command("/nonsense"))
    assert texts.UNKNOWN_COMMAND.format(name="nonsense") in out.getvalue()


@pytest.mark.parametrize("console", [False, True])
def test_help_names_every_command_and_track(console):
    from content import default_catalog

    tracks = default_catalog().tracks
    text = render.help_text(tracks, console=console).content
    for command in COMMANDS:
        assert f"`/{command.name}" in text
    for track in tracks.values():
        assert f"`{track.id}` ({track.title}, {len(track.bites)} bites)" in text
    assert set(BY_NAME) == {c.name for c in COMMANDS}


class Refusing:
    """A coach whose every service refuses the request."""

    def __init__(self, error):
        self.error = error

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        raise self.error


def refusing_handlers(error) -> Handlers:
    services = SimpleNamespace(coach=Refusing(error), catalog=default_catalog(), settings=None, store=None)
    return Handlers(services)


def entry_points(h: Handlers, track: str, bite: str):
    return [
        h.quiz(ADMIN, track, 5), h.review(ADMIN), h.leaderboard(ADMIN, "week"), h.settings(ADMIN, timezone="Mars"),
        h.daily_set(ADMIN, 1, "09:00", "UTC", track), h.daily_preview(ADMIN),
        h.press(ADMIN, ids.quiz_bite(bite)), h.press(ADMIN, ids.answer("12", 0, 1)),
        h.press(ADMIN, ids.daily(date(2026, 12, 2), 1)), h.press(ADMIN, ids.forget("abc123")),
    ]


def test_a_refused_request_reads_the_same_from_every_handler():
    catalog = default_catalog()
    track, bite = next(iter(catalog.tracks)), next(iter(catalog.bites))

    async def replies():
        return await asyncio.gather(*entry_points(refusing_handlers(InvalidRequest("count is off")), track, bite))

    for reply in asyncio.run(replies()):
        assert (reply.content, reply.outcome) == ("count is off.", "invalid")

    async def refused():
        return await asyncio.gather(*entry_points(refusing_handlers(NotOwner("not yours")), track, bite))

    for reply in asyncio.run(refused()):
        assert (reply.content, reply.outcome) == (texts.NOT_AVAILABLE, "refused")


def test_server_settings_are_refused_to_members_who_may_not_manage_the_server():
    h = refusing_handlers(InvalidRequest("never reached"))
    member, in_dm = Actor(user_id=8, guild_id=70), Actor(user_id=8)

    async def replies():
        return await asyncio.gather(h.daily_set(member, 1, "09:00", "UTC"), h.daily_off(member),
                                    h.daily_preview(member), h.daily_off(in_dm))

    *refused, dm = asyncio.run(replies())
    assert all((r.content, r.outcome) == (texts.DAILY_ADMINS_ONLY, "refused") for r in refused)
    assert (dm.content, dm.outcome) == (texts.DAILY_NEEDS_SERVER, "invalid")


def test_help_is_worded_for_the_front_end_that_asked(tmp_path):
    """/help runs through the command table on both front ends; the actor says which one asked."""
    handlers = refusing_handlers(InvalidRequest("unused"))
    handlers.services.settings = SimpleNamespace(data_dir=tmp_path)
    console_only = BY_NAME["explain"].console_help
    assert console_only and console_only != BY_NAME["explain"].help
    on_discord = asyncio.run(BY_NAME["help"].run(handlers, ADMIN, {})).content
    out = io.StringIO()
    asyncio.run(Console(handlers, stdin=io.StringIO(), stdout=out).command("/help"))
    assert console_only not in on_discord and BY_NAME["explain"].help in on_discord
    assert console_only[:40] in out.getvalue()
