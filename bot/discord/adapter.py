"""Glue between discord.py interactions and the shared handlers.

Every interaction is acknowledged within Discord's 3 seconds: a handler that
finishes within ACK_BUDGET_S answers directly (one round trip); a slower one, and
any grading, is deferred first and followed up. The budget is short so that a busy
event loop or a contended database still leaves most of the 3 seconds in reserve.
One log line per interaction.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Awaitable, Callable

import discord
from prometheus_client import Counter, Histogram

from bot import custom_ids
from bot.render import texts
from bot.actions import MODAL_OPENERS
from bot.handlers import Actor, Handlers
from bot.render.replies import Reply, notice
from bot.discord.views import AnswerModal, message_kwargs, modal_trigger

log = logging.getLogger("coach.bot.interactions")

INTERACTIONS = Counter("coach_interactions_total", "Interactions handled", ["kind", "outcome"])
ACK_SECONDS = Histogram("coach_interaction_ack_seconds", "Time to the first response",
                        buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0))

ACK_BUDGET_S = 0.25
# With this many handlers already running the bot is saturated (usually the database):
# acknowledge first, without waiting for the budget, so the ack never queues behind them.
BUSY_IN_FLIGHT = 8


def actor_of(interaction: discord.Interaction) -> Actor:
    perms = interaction.permissions
    return Actor(
        user_id=interaction.user.id,
        guild_id=interaction.guild_id or 0,
        name=interaction.user.display_name,
        can_manage_guild=bool(interaction.guild_id) and (perms.manage_guild or perms.administrator),
        request_id=str(interaction.id),
        locale=str(interaction.guild_locale or interaction.locale or ""),
        # Servers that invited the bot before pictures did not grant Attach Files.
        can_attach=not interaction.guild_id or interaction.app_permissions.attach_files,
        channel_id=interaction.channel_id or 0,
    )


class DiscordAdapter:
    def __init__(self, handlers: Handlers):
        self.handlers = handlers
        self.in_flight = 0

    # ----- entry points ------------------------------------------------------------------
    async def on_command(self, interaction: discord.Interaction, name: str,
                         work: Callable[[Actor], Awaitable[Reply]], *, slow: bool = False,
                         instant: bool = False, public: bool = False) -> None:
        """`public`: the reply is shown to the channel, so a deferral's placeholder must be too
        (the follow-up edits the placeholder, and cannot change its visibility)."""
        await self._run(interaction, name, lambda: work(actor_of(interaction)), slow=slow, from_button=False,
                        instant=instant, public=public)

    async def on_press(self, interaction: discord.Interaction, custom_id: str) -> None:
        decoded = custom_ids.decode(custom_id)
        name = f"button:{decoded.action if decoded else '?'}"
        actor = actor_of(interaction)
        await self._run(interaction, name, lambda: self.handlers.press(actor, custom_id),
                        slow=self.handlers.is_slow(custom_id), from_button=True,
                        instant=decoded is not None and decoded.action in MODAL_OPENERS)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        data = interaction.data or {}
        custom_id = data.get("custom_id", "")
        values = {}
        for row in data.get("components", []):
            for item in row.get("components", []) or [row.get("component") or {}]:
                if item.get("custom_id"):
                    values[item["custom_id"]] = item.get("value") or ""
        decoded = custom_ids.decode(custom_id)
        name = f"modal:{decoded.action if decoded else '?'}"
        actor = actor_of(interaction)
        slow = self.handlers.is_slow(custom_id)
        await self._run(interaction, name, lambda: self.handlers.submit(actor, custom_id, values),
                        slow=slow, from_button=False)

    # ----- responding ---------------------------------------------------------------------
    async def _run(self, interaction, name: str, work: Callable[[], Awaitable[Reply]], *, slow: bool,
                   from_button: bool, instant: bool = False, public: bool = False) -> None:
        """`slow`: defer at once (grading). `instant`: the reply may be a modal, which can
        only be a first response, so it is never deferred for being busy."""
        started = time.perf_counter()
        ack_ms = None
        outcome = "error"
        budget = 0.0 if self.in_flight >= BUSY_IN_FLIGHT and not instant else ACK_BUDGET_S
        self.in_flight += 1
        task = asyncio.ensure_future(self._safely(work))
        try:
            if not slow:
                done, _ = await asyncio.wait({task}, timeout=budget) if budget else (set(), None)
            if slow or not done:
                # Too slow for a direct answer: acknowledge now, follow up when done. A click
                # is acknowledged silently so its reply can still update the clicked message.
                edit = from_button and not slow
                await self._defer(interaction, edit=edit, public=public)
                ack_ms = (time.perf_counter() - started) * 1000
                reply = await task
                await self._follow_up(interaction, reply, deferred_update=edit)
            else:
                reply = task.result()
                await self._answer(interaction, reply, from_button=from_button)
                ack_ms = (time.perf_counter() - started) * 1000
            outcome = reply.outcome
        except discord.NotFound as error:  # 10062: too late, or the interaction vanished
            outcome = f"discord:{error.code}"
        except discord.HTTPException as error:
            outcome = f"discord:{error.status}:{error.code}"
        finally:
            self.in_flight -= 1
            if not task.done():
                task.cancel()
            INTERACTIONS.labels(name.split(":")[0], outcome.split(":")[0]).inc()
            if ack_ms is not None:
                ACK_SECONDS.observe(ack_ms / 1000)
            log.info("interaction", extra={
                "interaction": name, "user": interaction.user.id, "guild": interaction.guild_id or 0,
                "outcome": outcome, "ack_ms": round(ack_ms, 1) if ack_ms is not None else None,
                "total_ms": round((time.perf_counter() - started) * 1000, 1),
            })

    @staticmethod
    async def _safely(work: Callable[[], Awaitable[Reply]]) -> Reply:
        try:
            return await work()
        except Exception:
            log.exception("handler failed")
            return notice(texts.SORRY, outcome="error")

    @staticmethod
    async def _defer(interaction: discord.Interaction, *, edit: bool, public: bool = False) -> None:
        if edit:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=not public, thinking=True)

    @staticmethod
    async def _answer(interaction: discord.Interaction, reply: Reply, *, from_button: bool) -> None:
        if reply.modal is not None:
            await interaction.response.send_modal(AnswerModal(reply.modal))
        elif from_button and reply.edit:
            await interaction.response.edit_message(**message_kwargs(reply, editing=True))
        else:
            await interaction.response.send_message(**message_kwargs(reply), ephemeral=reply.ephemeral)

    @staticmethod
    async def _follow_up(interaction: discord.Interaction, reply: Reply, *, deferred_update: bool) -> None:
        if reply.modal is not None:
            reply = modal_trigger(reply)
        if deferred_update and not reply.edit:
            # A click acknowledged with a silent defer, answered by a new (private) message.
            kwargs = {k: v for k, v in message_kwargs(reply).items() if v is not None}
            await interaction.followup.send(**kwargs, ephemeral=reply.ephemeral)
        else:
            # Replaces the "thinking…" placeholder, or the clicked message for a deferred update.
            await interaction.edit_original_response(**message_kwargs(reply, editing=True))
