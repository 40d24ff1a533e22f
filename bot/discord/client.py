"""The Discord client: slash commands, the dynamic button, modal submissions, and
the background loops (daily posts, reminder DMs)."""

from __future__ import annotations

import asyncio
import logging

import discord
from discord import app_commands

from bot.discord import commands
from bot import custom_ids as ids
from bot.discord.daily_poster import DailyPoster, Reminders, every
from bot.discord.adapter import DiscordAdapter
from bot.discord.fleet import FleetClient
from bot.handlers import Handlers
from bot.render.replies import Reply
from bot.observability import start_http
from bot.discord.views import CoachButton, message_kwargs
from bot.discord.voice import VoiceMessages, intents
from coach.daily.claims import DailyPostClaims
from coach.readiness import Readiness
from coach.store.state import PURGE_EVERY

log = logging.getLogger("coach.bot.discord")

RECENT_MESSAGES = 50  # how far back a process taking over a daily post looks for it


def point_at(api_base: str | None, gateway_url: str | None) -> None:
    """Use another Discord (the local fake in tests and benchmarks)."""
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        import yarl

        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class CoachBot(FleetClient):
    def __init__(self, services, *, dev_guild_id: int | None = None, poll_seconds: float = 30.0,
                 background: bool = True, holder: str | None = None, **client_options):
        """`holder`: this process's name in the daily posts' claims (default: INSTANCE_NAME's,
        which a restarted process keeps, so it takes its own unfinished claim back at once)."""
        super().__init__(services.settings, services.store, intents=intents(services.settings), **client_options)
        self.services = services
        self.handlers = Handlers(services)
        self.adapter = DiscordAdapter(self.handlers)
        self.voice_messages = VoiceMessages(self.handlers, services.settings)
        self.tree = app_commands.CommandTree(self)
        self.dev_guild_id = dev_guild_id
        self.poll_seconds = poll_seconds
        self.background = background
        self.poster = DailyPoster(services.coach, services.catalog, self.send_post, self.warn_admin,
                                  week=self.week_for_post, find_post=self.find_post,
                                  claims=DailyPostClaims(services.store, clock=services.coach.now),
                                  holder=holder or services.settings.instance)
        self.poster.serves = self.serves_guild  # each process posts for the guilds of the shards it holds
        self.reminders = Reminders(services.coach, self.send_dm)
        self.synced = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._posting = asyncio.Lock()
        commands.register(self.tree, self.adapter, self.handlers, list(services.catalog.tracks))

    async def on_command_error(self, interaction: discord.Interaction, error: Exception) -> None:
        """An option discord.py could not convert (or a bug): never leave the user hanging."""
        log.warning("command failed", extra={"command": getattr(interaction.command, "qualified_name", "?"),
                                             "error": type(error).__name__})
        text = "I couldn't use one of those options — please check them and try again."
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass

    async def setup_hook(self) -> None:
        self.services.pictures.start()  # the picture workers warm up while the gateway connects
        self.services.speech.start()  # so do the speech workers (services.close() stops them)
        self.tree.on_error = self.on_command_error
        self.add_dynamic_items(CoachButton)
        if 0 in self.services.settings.own_shards:  # one process syncs the commands: shard 0's
            if self.dev_guild_id:
                guild = discord.Object(self.dev_guild_id)
                self.tree.copy_global_to(guild=guild)
                await self.tree.sync(guild=guild)
            else:
                await self.tree.sync()
        self.synced.set()
        if self.background:
            self._tasks.append(asyncio.create_task(every(self.poll_seconds, self.post_due, "daily")))
            self._tasks.append(asyncio.create_task(every(self.poll_seconds * 2, self.send_reminders, "reminders")))
            self._tasks.append(asyncio.create_task(every(PURGE_EVERY.total_seconds(), self.services.purge_expired_state,
                                                         "purge expired state")))
            if self.services.settings.models_at_start:
                self._tasks.append(asyncio.create_task(self.services.warm_up()))

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # Modal submissions are routed by custom_id here, so they work after a restart too.
        if interaction.type == discord.InteractionType.modal_submit:
            await self.adapter.on_submit(interaction)

    async def on_message(self, message: discord.Message) -> None:
        await self.voice_messages.on_message(message)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await super().close()

    async def on_shard_connect(self, shard_id: int) -> None:
        await super().on_shard_connect(shard_id)
        if self.background:  # a shard just taken over may have posts due: send them now, not at the next poll
            self._tasks.append(asyncio.create_task(self.post_due()))

    # ----- what the background jobs call -----------------------------------------------
    async def post_due(self) -> int:
        async with self._posting:  # the poll and a shard's arrival never post side by side
            return await self.poster.run_once()

    async def send_reminders(self) -> int:
        """Reminders are direct messages, Discord's shard 0: its holder sends them."""
        return await self.reminders.run_once() if self.serves_direct_messages() else 0

    async def send_post(self, channel_id: int, reply: Reply, nonce: str) -> int:
        channel = self.get_partial_messageable(channel_id)
        kwargs = {k: v for k, v in message_kwargs(reply).items() if v is not None}
        await self.rest_pace.wait()
        try:
            message = await channel.send(**kwargs, nonce=nonce)
        except discord.Forbidden as error:
            raise PermissionError(str(error)) from error
        except discord.NotFound as error:
            raise LookupError(str(error)) from error
        return message.id

    async def find_post(self, channel_id: int, pick) -> int | None:
        """The id of the pick's post among the channel's recent messages by this bot (its
        answer buttons carry the post's date), or None."""
        marker = ids.daily(pick.local_date, 0)[:-1]  # "d:<yyyymmdd>:", any choice
        channel = self.get_partial_messageable(channel_id)
        await self.rest_pace.wait()
        async for message in channel.history(limit=RECENT_MESSAGES):
            if self.user is not None and message.author.id != self.user.id:
                continue
            custom_ids = (getattr(item, "custom_id", None) or "" for row in message.components
                          for item in getattr(row, "children", ()))
            if any(custom_id.startswith(marker) for custom_id in custom_ids):
                return message.id
        return None

    async def warn_admin(self, guild_id: int, text: str) -> None:
        guild = self.get_guild(guild_id)
        if guild is not None and guild.owner_id:
            await self.send_dm(guild.owner_id, text)

    async def send_dm(self, user_id: int, text: str) -> None:
        await self.rest_pace.wait()
        channel = await self.create_dm(discord.Object(user_id))
        await channel.send(text[:2000])

    async def week_for_post(self, guild_id: int, channel_id: int, start):
        """The server's week beginning on `start`, and its picture, for the channel's daily post."""
        guild = self.get_guild(guild_id)
        return await self.handlers.week_picture(guild_id, start, guild.name if guild else "This server",
                                                self.member_names, channel_id=channel_id)

    async def member_names(self, guild_id: int, user_ids) -> dict[int, str]:
        """Display names in the server (nickname, else global name, else username) for a
        picture. One REST call each (the bot has no member intent); someone who left is
        "a former member", and a name that could not be fetched is left out."""

        async def one(user_id: int) -> tuple[int, str | None]:
            try:
                data = await self.http.get_member(guild_id, user_id)
            except discord.NotFound:
                return user_id, "a former member"
            except discord.HTTPException:
                return user_id, None
            user = data.get("user") or {}
            return user_id, data.get("nick") or user.get("global_name") or user.get("username")

        pairs = await asyncio.gather(*(one(user_id) for user_id in user_ids))
        return {user_id: name for user_id, name in pairs if name}


async def run_discord(settings) -> int:
    """Run the bot on Discord until interrupted."""
    from bot.services import build_services

    point_at(settings.discord_api_base, settings.discord_gateway_url)
    services = await build_services(settings)
    bot = CoachBot(services, dev_guild_id=settings.discord_dev_guild_id)
    side_door = await start_http(readiness_for(bot, services), settings.metrics_host, settings.metrics_port)
    try:
        await bot.start(settings.discord_token.get_secret_value())
    finally:
        if not bot.is_closed():
            await bot.close()
        if side_door is not None:
            await side_door.cleanup()
        await services.close()
    return 0


def readiness_for(bot: CoachBot, services) -> Readiness:
    """/healthz: ready when the database answers and every shard held is connected; the LLM
    and the models are reported but not required (the embedding grader covers the LLM)."""
    from sqlalchemy import text

    async def database() -> bool:
        await services.store.read(lambda db: db.execute(text("SELECT 1")))
        return True

    async def gateway() -> bool:  # a standby is ready while it stands by
        return not bot.is_closed() and bot.shards_connected()

    async def models() -> bool:
        return services._grader is not None

    async def llm() -> bool:
        return services.llm is not None and await services.llm.ensure_ready()

    readiness = Readiness()
    readiness.register("database", database)
    readiness.register("discord", gateway)
    readiness.register("models", models, critical=False)
    readiness.register("llm", llm, critical=False)
    readiness.describe("llm_judge", services.llm_status)
    return readiness
