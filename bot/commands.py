"""The slash commands: each is a few lines that hand the options to a handler."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord_adapter import DiscordAdapter
from bot.handlers import Handlers
from bot.voice_discord import recording_of

MANAGE_GUILD = discord.Permissions(manage_guild=True)


def register(tree: app_commands.CommandTree, adapter: DiscordAdapter, handlers: Handlers, track_ids: list[str]) -> None:
    tracks = [app_commands.Choice(name=t, value=t) for t in track_ids[:25]]
    periods = [app_commands.Choice(name=p, value=p) for p in ("week", "month", "all")]
    views = [app_commands.Choice(name=v, value=v) for v in ("progress", "map")]
    # Where weeks start in most places (CLDR): the weekly picture comes with that day's post.
    week_days = [app_commands.Choice(name=d.title(), value=d) for d in ("monday", "sunday", "saturday")]

    @tree.command(name="quiz", description="Multiple-choice questions with explanations")
    @app_commands.describe(track="Which track", count="How many questions (5-30)")
    @app_commands.choices(track=tracks)
    async def quiz(interaction: discord.Interaction, track: str | None = None,
                   count: app_commands.Range[int, 5, 30] = 10):
        await adapter.on_command(interaction, "quiz", lambda a: handlers.quiz(a, track, count))

    @tree.command(name="bite", description="A 60-second explainer: on a topic, or today's")
    @app_commands.describe(topic="A few words about the topic (optional)")
    async def bite(interaction: discord.Interaction, topic: app_commands.Range[str, 1, 200] | None = None):
        await adapter.on_command(interaction, "bite", lambda a: handlers.bite(a, topic))

    @tree.command(name="explain", description="Explain a concept out loud and get it graded")
    @app_commands.describe(topic="The concept (optional: with none, just answer and I find the topic)",
                           audio="A recording of your answer (a voice memo or audio file, up to 3 minutes)")
    async def explain(interaction: discord.Interaction, topic: app_commands.Range[str, 1, 200] | None = None,
                      audio: discord.Attachment | None = None):
        if audio is not None:  # transcribing takes seconds: acknowledge first
            recording = recording_of(audio)
            await adapter.on_command(interaction, "explain audio",
                                     lambda a: handlers.voice.explain_audio(a, topic, recording), slow=True)
            return
        await adapter.on_command(interaction, "explain", lambda a: handlers.explain(a, topic), instant=not topic)

    @tree.command(name="review", description="Go through your due review cards")
    async def review(interaction: discord.Interaction):
        await adapter.on_command(interaction, "review", handlers.review)

    @tree.command(name="stats", description="Your progress as a picture; view:map shows every bite by mastery")
    @app_commands.describe(view="progress (the default) or map: every bite of a track as a tile coloured by mastery",
                           track="Which track's bite map")
    @app_commands.choices(view=views, track=tracks)
    async def stats(interaction: discord.Interaction, view: str = "progress", track: str | None = None):
        await adapter.on_command(interaction, "stats", lambda a: handlers.stats(a, view, track))

    @tree.command(name="leaderboard", description="Who earned the most XP here")
    @app_commands.choices(period=periods)
    async def leaderboard(interaction: discord.Interaction, period: str = "week"):
        await adapter.on_command(interaction, "leaderboard", lambda a: handlers.leaderboard(a, period), public=True)

    @tree.command(name="settings", description="Timezone, answer keeping, leaderboard, reminders")
    @app_commands.describe(timezone="IANA name, e.g. Europe/Paris", keep_answers="Keep the texts of my answers",
                           leaderboard="Show me on the leaderboard", reminders="DM me when reviews are due")
    async def settings(interaction: discord.Interaction, timezone: app_commands.Range[str, 1, 64] | None = None,
                       keep_answers: bool | None = None, leaderboard: bool | None = None,
                       reminders: bool | None = None):
        await adapter.on_command(interaction, "settings", lambda a: handlers.settings(
            a, timezone=timezone, keep_answers=keep_answers, leaderboard=leaderboard, reminders=reminders))

    @tree.command(name="forget", description="Delete all your data (asks to confirm)")
    async def forget(interaction: discord.Interaction):
        await adapter.on_command(interaction, "forget", handlers.forget)

    @tree.command(name="help", description="What the coach can do")
    async def help_(interaction: discord.Interaction):
        await adapter.on_command(interaction, "help", handlers.help)

    daily = app_commands.Group(name="daily", description="The server's daily bite and question (admins)",
                               default_permissions=MANAGE_GUILD, guild_only=True)

    @daily.command(name="set", description="Post a daily bite and question in a channel")
    @app_commands.describe(channel="Where to post", time="Local time, HH:MM (24-hour)",
                           timezone="IANA name, e.g. Europe/Berlin", track="Which track",
                           week_starts="Day the server's week starts; that day's post shows the last week "
                                       "(default: by language)")
    @app_commands.choices(track=tracks, week_starts=week_days)
    async def daily_set(interaction: discord.Interaction, channel: discord.TextChannel,
                        time: app_commands.Range[str, 1, 5], timezone: app_commands.Range[str, 1, 64],
                        track: str | None = None, week_starts: str | None = None):
        await adapter.on_command(interaction, "daily set",
                                 lambda a: handlers.daily_set(a, channel.id, time, timezone, track, week_starts))

    @daily.command(name="off", description="Stop the daily posts")
    async def daily_off(interaction: discord.Interaction):
        await adapter.on_command(interaction, "daily off", handlers.daily_off)

    @daily.command(name="preview", description="See today's post (only you)")
    async def daily_preview(interaction: discord.Interaction):
        await adapter.on_command(interaction, "daily preview", handlers.daily_preview)

    tree.add_command(daily)
