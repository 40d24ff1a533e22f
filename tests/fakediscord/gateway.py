"""The fake's gateway, with shards as Discord runs them.

GET /gateway/bot recommends `shard_count` shards and reports the session-start limit
(`total`, `remaining`, `reset_after`, `max_concurrency`); every IDENTIFY spends one start.
An IDENTIFY names its shard as `[shard_id, shard_count]` (none means `[0, 1]`). Shards whose
ids are equal modulo `max_concurrency` share a bucket, and a bucket takes one IDENTIFY per
`identify_window_s` (Discord: 5 s): a faster one is answered with op 9, Invalid Session, as
Discord does, and recorded. A guild's events go to the sessions of shard
`(guild_id >> 22) % shard_count`; direct-message events to shard 0. An event for a shard no
session serves is recorded in `dropped`; one written to a session whose client just died (its
connection reset under the write) is recorded in `lost` and not counted as delivered. A second
live session on a shard is allowed (Discord allows it too) but recorded in `overlaps`: the
bot's leases exist so that it never happens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from aiohttp import WSMsgType, web

from tests.fakediscord import payloads

IDENTIFY_WINDOW_S = 5.0


@dataclass
class Session:
    ws: web.WebSocketResponse
    shard_id: int
    shard_count: int
    session_id: str
    started_at: float

    def serves(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id


@dataclass
class IdentifyRecord:
    at: float
    shard_id: int
    shard_count: int
    accepted: bool
    reason: str = ""


@dataclass
class GatewayLimits:
    shard_count: int = 1  # what GET /gateway/bot recommends
    max_concurrency: int = 1
    total: int = 1000
    remaining: int = 1000
    reset_after_ms: int = 14_400_000
    identify_window_s: float = IDENTIFY_WINDOW_S


@dataclass
class Gateway:
    fake: object  # the FakeDiscord: its clock, guilds, bot user
    limits: GatewayLimits = field(default_factory=GatewayLimits)
    sessions: dict = field(default_factory=dict)  # ws -> Session, live ones
    identifies: list[IdentifyRecord] = field(default_factory=list)
    overlaps: list[tuple[int, int]] = field(default_factory=list)  # (shard, count) served twice at once
    dropped: list[tuple[str, int | None]] = field(default_factory=list)  # (event, guild) no session could take
    lost: list[tuple[str, int | None, int]] = field(default_factory=list)  # (event, guild, shard) sent to a dead client
    _resumable: dict = field(default_factory=dict)  # session id -> Session
    _seq: int = 0
    _pending: list = field(default_factory=list)  # (event, data) for guilds joined while connected

    # ----- what tests read -------------------------------------------------------------------
    def sessions_on(self, shard_id: int) -> list[Session]:
        return [s for s in self.sessions.values() if s.shard_id == shard_id and not s.ws.closed]

    def accepted_identifies(self) -> list[IdentifyRecord]:
        return [i for i in self.identifies if i.accepted]

    # ----- REST ----------------------------------------------------------------------------
    def bot_gateway(self) -> dict:
        limits = self.limits
        return {"url": self.fake.gateway_url, "shards": limits.shard_count,
                "session_start_limit": {"total": limits.total, "remaining": limits.remaining,
                                        "reset_after": limits.reset_after_ms,
                                        "max_concurrency": limits.max_concurrency}}

    # ----- events ----------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    @staticmethod
    def _guild_of(event: str, data: dict) -> int | None:
        if event.startswith("GUILD_") and "id" in data and "guild_id" not in data:
            return int(data["id"])
        return int(data["guild_id"]) if data.get("guild_id") else None

    async def dispatch(self, event: str, data: dict) -> int:
        """Send an event to the sessions of its shard; returns how many got it (a session whose
        client died as the event was written did not: the event is in `lost`)."""
        pending, self._pending = self._pending, []
        for name, payload in [*pending, (event, data)]:
            guild_id = self._guild_of(name, payload)
            frame = json.dumps({"op": 0, "t": name, "s": self._next_seq(), "d": payload})
            targets = [s for s in list(self.sessions.values()) if s.serves(guild_id) and not s.ws.closed]
            delivered = 0
            for session in targets:
                try:
                    await session.ws.send_str(frame)
                except ConnectionResetError:  # that client just died (a SIGKILLed bot): the event is lost with it
                    self.lost.append((name, guild_id, session.shard_id))
                else:
                    delivered += 1
            if not targets:
                self.dropped.append((name, guild_id))
        return delivered

    def guild_joined(self, guild: dict) -> None:
        if self.sessions:  # a server the bot joins while connected: sent before the next event
            self._pending.append(("GUILD_CREATE", guild))

    # ----- the websocket -----------------------------------------------------------------------
    async def serve(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op = frame.get("op")
                if op == 1:
                    await ws.send_str(json.dumps({"op": 11}))
                elif op == 2:
                    await self._identify(ws, frame.get("d") or {})
                elif op == 6:
                    await self._resume(ws, frame.get("d") or {})
        finally:
            self.sessions.pop(ws, None)
        return ws

    def _refusal(self, shard_id: int) -> str:
        limits = self.limits
        if limits.remaining < 1:
            return "no session starts left"
        bucket = shard_id % limits.max_concurrency
        now = self.fake.now()
        for earlier in reversed(self.identifies):
            if now - earlier.at >= limits.identify_window_s:
                break
            if earlier.accepted and earlier.shard_id % limits.max_concurrency == bucket:
                return f"bucket {bucket} identified {now - earlier.at:.2f}s ago"
        return ""

    async def _identify(self, ws: web.WebSocketResponse, data: dict) -> None:
        shard_id, shard_count = data.get("shard") or (0, 1)
        refusal = self._refusal(shard_id)
        self.identifies.append(IdentifyRecord(self.fake.now(), shard_id, shard_count, not refusal, refusal))
        if refusal:
            await ws.send_str(json.dumps({"op": 9, "d": False}))
            return
        self.fake.intents = int(data.get("intents") or 0)  # what members' messages the bot may see
        self.limits.remaining -= 1
        if any(s.shard_id == shard_id and s.shard_count == shard_count for s in self.sessions.values()
               if not s.ws.closed):
            self.overlaps.append((shard_id, shard_count))
        session = Session(ws, shard_id, shard_count, f"session-{payloads.snowflake()}", self.fake.now())
        guilds = [g for g in self.fake.guilds.values() if session.serves(int(g["id"]))]
        ready = {
            "v": 10,
            "user": self.fake.bot_user,
            "guilds": [{"id": g["id"], "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "resume_gateway_url": self.fake.gateway_url,
            "shard": [shard_id, shard_count],
            "application": {"id": str(self.fake.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        self.sessions[ws] = session
        self._resumable[session.session_id] = session
        self._pending = [(n, p) for n, p in self._pending if not session.serves(self._guild_of(n, p))]
        await ws.send_str(json.dumps({"op": 0, "t": "READY", "s": self._next_seq(), "d": ready}))
        for guild in guilds:  # READY and GUILD_CREATE carry every guild of the shard
            await ws.send_str(json.dumps({"op": 0, "t": "GUILD_CREATE", "s": self._next_seq(), "d": guild}))
        self.fake.identified.set()

    async def _resume(self, ws: web.WebSocketResponse, data: dict) -> None:
        earlier = self._resumable.get(data.get("session_id") or "")
        if earlier is None:
            await ws.send_str(json.dumps({"op": 9, "d": False}))
            return
        session = Session(ws, earlier.shard_id, earlier.shard_count, earlier.session_id, self.fake.now())
        self.sessions[ws] = session
        await ws.send_str(json.dumps({"op": 0, "t": "RESUMED", "s": self._next_seq(), "d": {}}))
