"""discord.py's AutoShardedClient, with shards connected and stopped by lease (coach/fleet).

Where AutoShardedClient connects every shard of `shard_ids` at start, this client connects a
shard only once the shard keeper has won its lease, stops it when the lease is lost, and
spaces every IDENTIFY (first connections and reconnections alike) through the identify
gate, which reads GET /gateway/bot's session-start limit and claims the shard's bucket in
the database. The default settings (SHARD_COUNT=1, no SHARD_IDS) make one process with
shard 0, as before.
"""

from __future__ import annotations

import asyncio
import logging

import discord

from coach.fleet import IdentifyGate, Pace, SessionStartLimit, ShardKeeper, shard_of

log = logging.getLogger("coach.bot.fleet")


class FleetClient(discord.AutoShardedClient):
    def __init__(self, settings, store, **options):
        super().__init__(shard_count=settings.shard_count, shard_ids=list(settings.own_shards), **options)
        self.fleet_settings = settings
        self.keeper = ShardKeeper(store, shard_count=settings.shard_count, own_shards=settings.own_shards,
                                  standby=settings.standby, owner=settings.instance, lease_s=settings.shard_lease_s,
                                  connect=self._connect_shard, disconnect=self._disconnect_shard)
        self.identify_gate = IdentifyGate(store, self._session_start_limit, owner=settings.instance,
                                          window_s=settings.discord_identify_window_s)
        self._launching: dict[int, asyncio.Task] = {}
        # The process's own REST calls (not interaction replies) share the bot's global limit.
        self.rest_pace = Pace(lambda: self.keeper.processes)

    # ----- which shards, and whose guilds ----------------------------------------------------
    def serves_guild(self, guild_id: int) -> bool:
        """Whether this process holds the shard that carries `guild_id`'s events now."""
        return shard_of(guild_id, self.fleet_settings.shard_count) in self.keeper.held

    def serves_direct_messages(self) -> bool:
        return 0 in self.keeper.held  # Discord delivers DMs on shard 0

    def shards_connected(self) -> bool:
        """Every shard this process holds is connected (a standby holding none is fine)."""
        if not self.keeper.held:
            return self.fleet_settings.standby
        return all((shard := self.get_shard(s)) is not None and not shard.is_closed() for s in self.keeper.held)

    # ----- AutoShardedClient hooks -----------------------------------------------------------
    async def launch_shards(self) -> None:
        """Instead of connecting every shard: start the keeper, which connects what it holds."""
        if self.is_closed():
            return
        self._connection.shard_count = self.shard_count
        self._connection.shard_ids = []  # grows as leases are won; `ready` fires once those are up
        await self._warn_if_too_few_shards()
        self.keeper.start()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        if shard_id not in self.keeper.held:
            # discord.py reconnecting a shard whose lease is gone: give up this connection;
            # discord.py treats a cancelled reconnect as the end of it.
            raise asyncio.CancelledError
        await self.identify_gate.wait_turn(shard_id)
        if shard_id not in self.keeper.held:  # lost while waiting for the slot
            raise asyncio.CancelledError

    async def on_shard_connect(self, shard_id: int) -> None:
        log.warning("shard connected", extra={"shard": shard_id, "owner": self.keeper.owner})

    async def close(self) -> None:
        await self.keeper.close()  # releases the leases: a standby need not wait for them to lapse
        for task in self._launching.values():
            task.cancel()
        await super().close()

    # ----- what the keeper calls -------------------------------------------------------------
    async def _connect_shard(self, shard_id: int) -> None:
        if shard_id not in self._connection.shard_ids:
            self._connection.shard_ids.append(shard_id)
        previous = self._launching.pop(shard_id, None)
        if previous is not None:
            previous.cancel()
        self._launching[shard_id] = asyncio.create_task(
            self.launch_shard(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY, shard_id), name=f"shard-{shard_id}")

    async def _disconnect_shard(self, shard_id: int) -> None:
        task = self._launching.pop(shard_id, None)
        if task is not None and not task.done():
            task.cancel()
        if shard_id in self._connection.shard_ids:
            self._connection.shard_ids.remove(shard_id)
        shard = self.get_shard(shard_id)
        if shard is not None and not shard.is_closed():
            await shard.disconnect()
        log.warning("shard disconnected", extra={"shard": shard_id})

    async def _session_start_limit(self) -> SessionStartLimit:
        limits = await self.fetch_session_start_limits()
        return SessionStartLimit(limits.total, limits.remaining, limits.reset_after, limits.max_concurrency)

    async def _warn_if_too_few_shards(self) -> None:
        try:
            recommended, _, _ = await self.http.get_bot_gateway()
        except discord.HTTPException:
            return
        if recommended > self.shard_count:
            log.warning("Discord recommends more shards than SHARD_COUNT",
                        extra={"recommended": recommended, "shard_count": self.shard_count})
