"""The slash commands on Discord, built from the command table (bot/command_table.py):
each becomes an app command whose options hand their values to the table's handler."""

from __future__ import annotations

import inspect
from typing import Any, Optional

import discord
from discord import app_commands

from bot.command_table import COMMANDS, GROUPS, Command, Option
from bot.discord.adapter import DiscordAdapter
from bot.handlers import Handlers
from bot.discord.voice import recording_of

MANAGE_GUILD = discord.Permissions(manage_guild=True)
TYPES = {"text": str, "number": int, "flag": bool, "channel": discord.TextChannel, "audio": discord.Attachment}


def _annotation(option: Option) -> Any:
    kind = TYPES[option.kind]
    if option.bounds is not None:
        kind = app_commands.Range[kind, option.bounds[0], option.bounds[1]]
    return kind if option.required else Optional[kind]


def _value(option: Option, value: Any) -> Any:
    """What the handler takes: a channel's id, a recording instead of an attachment."""
    if value is None:
        return None
    if option.kind == "channel":
        return value.id
    if option.kind == "audio":
        return recording_of(value)
    return value


def _choices(option: Option, tracks: list[app_commands.Choice]) -> list[app_commands.Choice] | None:
    if option.tracks:
        return tracks + [app_commands.Choice(name=c, value=c) for c in option.choices]
    if option.choices:
        return [app_commands.Choice(name=c.title() if option.titled else c, value=c) for c in option.choices]
    return None


def _app_command(command: Command, adapter: DiscordAdapter, handlers: Handlers, tracks, parent=None):
    async def callback(interaction: discord.Interaction, **given):
        options = {o.name: _value(o, given.get(o.name, o.default)) for o in command.options}
        await adapter.on_command(interaction, command.name, lambda actor: handlers.command(command, actor, options),
                                 slow=command.slow(options), instant=command.instant(options), public=command.public)

    ordered = sorted(command.options, key=lambda o: not o.required)  # Discord wants the required ones first
    callback.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction)]
        + [inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, annotation=_annotation(o),
                             default=inspect.Parameter.empty if o.required else o.default) for o in ordered])
    described = {o.name: o.description for o in command.options if o.description}
    if described:
        app_commands.describe(**described)(callback)
    choices = {o.name: listed for o in command.options if (listed := _choices(o, tracks)) is not None}
    if choices:
        app_commands.choices(**choices)(callback)
    return app_commands.Command(name=command.name.split()[-1], description=command.description, callback=callback,
                                parent=parent)


def register(tree: app_commands.CommandTree, adapter: DiscordAdapter, handlers: Handlers, track_ids: list[str]) -> None:
    tracks = [app_commands.Choice(name=t, value=t) for t in track_ids[:25]]
    groups = {name: app_commands.Group(name=name, description=group.description, guild_only=group.admin,
                                       default_permissions=MANAGE_GUILD if group.admin else None)
              for name, group in GROUPS.items()}
    for command in COMMANDS:
        group = groups.get(command.name.split()[0]) if " " in command.name else None
        app_command = _app_command(command, adapter, handlers, tracks, parent=group)
        if group is not None:
            group.add_command(app_command)
        else:
            tree.add_command(app_command)
    for group in groups.values():
        tree.add_command(group)
