"""A local fake Discord: REST (aiohttp) plus a gateway websocket that the real
discord.py client connects to. It records every request and enforces what Discord
enforces: the 3-second first response, one initial response per interaction, the
15-minute token, payload limits (400), 429s with `retry_after` and `Via`, 403s on
channels the bot lost, and nonce deduplication when `enforce_nonce` is set.

Files come as Discord takes them: `multipart/form-data` with the message as
`payload_json` and the files as `files[n]`, described by the payload's `attachments`
(`{"id": n, "filename", "description"}`). They become the message's `attachments`
(with width and height for a PNG); their bytes are kept (`attachment_bytes`) and served
at each attachment's `url`. A channel can refuse files (`deny_attachments`: 403, as for a
bot without *Attach Files*).

What members send (files for attachment options, messages, voice messages) and how the
bot's intents gate it: user_messages.py.

The gateway serves shards (gateway.py): `FakeDiscord(shard_count=2, max_concurrency=2)`; each
event goes to the session of its guild's shard, and identifies are rate limited per bucket."""

from __future__ import annotations

import asyncio
import json
import struct
import time
from datetime import datetime, timezone

from aiohttp import web

from tests.fakediscord import payloads
from tests.fakediscord.gateway import Gateway, GatewayLimits
from tests.fakediscord.limits import message_problems, modal_problems
from tests.fakediscord.user_messages import UserMessages
from tests.fakediscord.records import (
    FIRST_RESPONSE_DEADLINE_S,
    RESPONSE_DEFER,
    RESPONSE_DEFER_UPDATE,
    RESPONSE_MESSAGE,
    RESPONSE_MODAL,
    RESPONSE_UPDATE,
    TOKEN_LIFETIME_S,
    Fault,
    InteractionRecord,
    RecordedRequest,
)

API = "/api/v10"
BODY = web.RequestKey("body", object)  # the parsed JSON body (or multipart payload_json), set by the middleware
FILES = web.RequestKey("files", list)  # [(index, filename, bytes)] of a multipart request
EPHEMERAL = 1 << 6
LOADING = 1 << 7
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _json(data, status: int = 200, headers: dict | None = None) -> web.Response:
    # discord.py parses JSON only when Content-Type is exactly application/json.
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json", **(headers or {})}
    )


def _error(status: int, code: int, message: str, errors: list[str] | None = None) -> web.Response:
    body = {"code": code, "message": message}
    if errors:
        body["errors"] = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": e} for e in errors]}
    return _json(body, status)


class FakeDiscord(UserMessages):
    def __init__(self, *, clock=time.monotonic, **gateway_limits):
        """`gateway_limits`: GatewayLimits fields (shard_count, max_concurrency, identify_window_s, ...)."""
        self._clock = clock
        self.skew = 0.0  # added to the clock; `advance()` moves time forward
        self.app_id = payloads.snowflake()
        self.bot_user = payloads.user(payloads.snowflake(), "Interview Coach", bot=True)
        self.owner_user = payloads.user(payloads.snowflake(), "owner")
        self.token = "fake-bot-token"
        self.users: dict[int, dict] = {}
        self.guilds: dict[int, dict] = {}
        self.channels: dict[int, dict] = {}
        self.messages: dict[int, dict] = {}
        self.requests: list[RecordedRequest] = []
        self.interactions: dict[str, InteractionRecord] = {}
        self._by_token: dict[str, InteractionRecord] = {}
        self.global_commands: list[dict] = []
        self.guild_commands: dict[int, list[dict]] = {}
        self.faults: list[Fault] = []
        self.forbidden_channels: set[int] = set()
        self.no_attach_channels: set[int] = set()
        self.attachment_bytes: dict[int, bytes] = {}  # attachment id -> the file's bytes
        self.attachment_types: dict[int, str] = {}  # attachment id -> content type, for members' files
        self.intents = 0  # what the bot identified with
        self.nicks: dict[tuple[int, int], str] = {}  # (guild id, user id) -> nickname
        self.nonces: dict[tuple[int, str], int] = {}
        self.gateway = Gateway(self, GatewayLimits(**gateway_limits))
        self.identified = asyncio.Event()
        self.commands_synced = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ----- time -----
    def now(self) -> float:
        return self._clock() + self.skew

    def advance(self, seconds: float) -> None:
        self.skew += seconds

    # ----- world building -----
    def add_user(self, name: str) -> dict:
        user = payloads.user(payloads.snowflake(), name)
        self.users[int(user["id"])] = user
        return user

    def add_guild(self, name: str = "Test Server", channel_names=("general", "daily"), *,
                  shard: tuple[int, int] | None = None) -> dict:
        """`shard=(shard_id, shard_count)`: a guild whose events that shard carries."""
        guild_id = payloads.snowflake() if shard is None else payloads.snowflake_on_shard(*shard)
        channels = [
            payloads.text_channel(payloads.snowflake(), guild_id, channel, i) for i, channel in enumerate(channel_names)
        ]
        for channel in channels:
            self.channels[int(channel["id"])] = channel
        bot_member = payloads.member(self.bot_user, permissions=payloads.BOT_PERMISSIONS)
        guild = payloads.guild(guild_id, name, int(self.owner_user["id"]), channels, [bot_member])
        self.guilds[guild_id] = guild
        self.gateway.guild_joined(guild)
        return guild

    def channel(self, guild: dict, name: str) -> dict:
        return next(c for c in guild["channels"] if c["name"] == name)

    def channel_messages(self, channel_id: int | str, *, replies: bool = False) -> list[dict]:
        """Messages posted in a channel; interaction replies only when `replies`."""
        return [m for m in self.messages.values() if m["channel_id"] == str(channel_id)
                and (replies or "interaction_metadata" not in m)]

    # ----- fault injection -----
    def inject(self, status: int = 429, **kwargs) -> Fault:
        fault = Fault(status=status, **kwargs)
        self.faults.append(fault)
        return fault

    def forbid_channel(self, channel_id: int | str) -> None:
        self.forbidden_channels.add(int(channel_id))

    def deny_attachments(self, channel_id: int | str) -> None:
        """The bot lacks *Attach Files* in this channel: a message with files gets 403."""
        self.no_attach_channels.add(int(channel_id))

    def set_nick(self, guild: dict, user: dict, nick: str) -> None:
        self.nicks[(int(guild["id"]), int(user["id"]))] = nick

    def attachment_data(self, attachment: dict) -> bytes:
        """The bytes of a message's attachment."""
        return self.attachment_bytes[int(attachment["id"])]

    # ----- server lifecycle -----
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return self.base_url + API

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self, port: int = 0) -> "FakeDiscord":
        app = web.Application(middlewares=[self._record_and_inject], client_max_size=16 * 1024 * 1024)
        self._routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        return self

    @property
    def gateways(self) -> list[web.WebSocketResponse]:
        """The live gateway sessions' sockets, every shard's."""
        return [session.ws for session in self.gateway.sessions.values()]

    def shard_of(self, guild: dict, shard_count: int | None = None) -> int:
        return (int(guild["id"]) >> 22) % (shard_count or self.gateway.limits.shard_count)

    async def stop(self) -> None:
        for ws in list(self.gateways):
            await ws.close()
        if self._runner:
            await self._runner.cleanup()

    def _routes(self, app: web.Application) -> None:
        r = app.router
        r.add_get("/gateway", self.gateway.serve)
        r.add_get(API + "/gateway", self._get_gateway)
        r.add_get(API + "/gateway/bot", self._get_gateway)
        r.add_get(API + "/users/@me", self._me)
        r.add_get(API + "/oauth2/applications/@me", self._application)
        r.add_get(API + "/applications/@me", self._application)
        r.add_put(API + "/applications/{app}/commands", self._put_commands)
        r.add_get(API + "/applications/{app}/commands", self._get_global_commands)
        r.add_put(API + "/applications/{app}/guilds/{guild}/commands", self._put_commands)
        r.add_get(API + "/applications/{app}/guilds/{guild}/commands", self._get_guild_commands)
        r.add_post(API + "/interactions/{id}/{token}/callback", self._callback)
        r.add_post(API + "/webhooks/{app}/{token}", self._followup)
        r.add_route("*", API + "/webhooks/{app}/{token}/messages/{message}", self._webhook_message)
        r.add_post(API + "/channels/{channel}/messages", self._create_message)
        r.add_get(API + "/channels/{channel}/messages", self._list_messages)
        r.add_route("*", API + "/channels/{channel}/messages/{message}", self._channel_message)
        r.add_get(API + "/channels/{channel}", self._get_channel)
        r.add_post(API + "/channels/{channel}/typing", self._typing)
        r.add_post(API + "/users/@me/channels", self._create_dm)
        r.add_get(API + "/guilds/{guild}/members/{user}", self._get_member)
        r.add_get("/attachments/{id}/{filename}", self._get_attachment)
        r.add_route("*", "/{tail:.*}", self._unknown)

    @web.middleware
    async def _record_and_inject(self, request: web.Request, handler):
        body, files = None, []
        if request.can_read_body and request.content_type == "application/json":
            body = await request.json()
        elif request.can_read_body and request.content_type == "multipart/form-data":
            body, files = await self._read_multipart(request)
        record = RecordedRequest(request.method, request.path, dict(request.query), body, at=self.now(),
                                 files=[(index, name, len(data)) for index, name, data in files])
        if request.path != "/gateway":
            self.requests.append(record)
        route_key = f"{request.method} {request.match_info.route.resource.canonical}"
        for fault in self.faults:
            if request.path != "/gateway" and fault.take(request.method, route_key, request.path):
                record.status = fault.status
                return self._fault_response(fault)
        request[BODY] = body
        request[FILES] = files
        response = await handler(request)
        record.status = response.status
        return response

    @staticmethod
    async def _read_multipart(request: web.Request) -> tuple[dict | None, list]:
        body, files = None, []
        reader = await request.multipart()
        async for part in reader:
            if part.name == "payload_json":
                body = json.loads(await part.text())
            elif part.name and part.name.startswith("files[") and part.name.endswith("]"):
                files.append((int(part.name[6:-1]), part.filename or "", bytes(await part.read())))
        return body, files

    @staticmethod
    def _fault_response(fault: Fault) -> web.Response:
        if fault.status == 429:
            headers = {"Via": "1.1 google", "Retry-After": str(fault.retry_after), "X-RateLimit-Scope": "user"}
            body = {"message": "You are being rate limited.", "retry_after": fault.retry_after, "global": False}
            return _json(body, 429, headers)
        if fault.status == 403:
            return _error(403, 50013, "Missing Permissions")
        return _json({"message": "Server Error", "code": 0}, fault.status)

    # ----- gateway (gateway.py) -----
    async def dispatch(self, event: str, data: dict) -> int:
        return await self.gateway.dispatch(event, data)

    async def _get_gateway(self, _request) -> web.Response:
        return _json(self.gateway.bot_gateway())

    async def _application(self, _request) -> web.Response:
        return _json(payloads.application(self.app_id, self.owner_user))

    # ----- application commands -----
    async def _put_commands(self, request: web.Request) -> web.Response:
        stored = []
        for command in request[BODY] or []:
            stored.append({**command, "id": str(payloads.snowflake()), "application_id": str(self.app_id), "version": "1"})
        guild = request.match_info.get("guild")
        if guild:
            stored = [{**c, "guild_id": guild} for c in stored]
            self.guild_commands[int(guild)] = stored
        else:
            self.global_commands = stored
        self.commands_synced.set()
        return _json(stored)

    async def _get_global_commands(self, _request) -> web.Response:
        return _json(self.global_commands)

    async def _me(self, _request) -> web.Response:
        return _json(self.bot_user)

    async def _get_guild_commands(self, request: web.Request) -> web.Response:
        return _json(self.guild_commands.get(int(request.match_info["guild"]), []))

    def command(self, name: str, guild_id: int | None = None) -> dict:
        for command in self.guild_commands.get(guild_id, []) + self.global_commands:
            if command["name"] == name:
                return command
        raise KeyError(f"command /{name} was never synced")

    # ----- interactions pushed to the bot -----
    async def push(self, payload: dict) -> InteractionRecord:
        """Deliver an interaction on its guild's shard (a DM's on shard 0). With no session
        there, or only one whose client died as it was sent, nobody gets it: the user sees
        "This interaction failed" (`record.delivered`)."""
        record = InteractionRecord(payload=payload, dispatched_at=self.now())
        self.interactions[payload["id"]] = record
        self._by_token[record.token] = record
        record.delivered = await self.dispatch("INTERACTION_CREATE", payload) > 0
        return record

    def _where(self, guild: dict | None, channel: dict | None) -> tuple[int | None, dict]:
        if guild is None:
            return None, channel or payloads.dm_channel(payloads.snowflake(), self.bot_user)
        return int(guild["id"]), channel or guild["channels"][0]

    async def slash(self, actor: dict, name: str, *, guild: dict | None = None, channel: dict | None = None,
                    options: dict | None = None, subcommand: str | None = None, admin: bool = False,
                    app_permissions: str | None = None) -> InteractionRecord:
        """`app_permissions`: what the bot may do in that channel (default: payloads.BOT_PERMISSIONS)."""
        guild_id, channel = self._where(guild, channel)
        given = dict(options or {})
        if options:  # channel and attachment dicts -> their ids, the objects go in `resolved`
            options = {k: (v["id"] if isinstance(v, dict) else v) for k, v in options.items()}
        payload = payloads.slash_command(
            self.app_id, self.command(name, guild_id), actor=actor, guild_id=guild_id, channel=channel,
            options=options, subcommand=subcommand,
            permissions=payloads.ADMIN_PERMISSIONS if admin else payloads.MEMBER_PERMISSIONS,
            resolved=self._resolve(given),
        )
        if app_permissions is not None:
            payload["app_permissions"] = app_permissions
        return await self.push(payload)

    def _resolve(self, options: dict) -> dict | None:
        """`data.resolved` for the channels and attachments given as options."""
        resolved = {}
        channels = {str(v["id"]) for v in options.values() if isinstance(v, dict) and "filename" not in v
                    and int(v["id"]) in self.channels}
        channels |= {str(v) for v in options.values() if not isinstance(v, dict) and str(v).isdigit()
                     and int(v) in self.channels}
        if channels:
            resolved["channels"] = {i: {**self.channels[int(i)], "permissions": payloads.BOT_PERMISSIONS}
                                    for i in channels}
        files = {v["id"]: {**v, "ephemeral": True} for v in options.values() if isinstance(v, dict) and "filename" in v}
        if files:
            resolved["attachments"] = files
        return resolved or None

    async def click(self, actor: dict, message: dict, custom_id: str, *, admin: bool = False) -> InteractionRecord:
        channel = self.channels.get(int(message["channel_id"])) or payloads.dm_channel(int(message["channel_id"]), actor)
        guild_id = int(channel["guild_id"]) if channel.get("guild_id") else None
        payload = payloads.button_click(
            self.app_id, message, custom_id, actor=actor, guild_id=guild_id, channel=channel,
            permissions=payloads.ADMIN_PERMISSIONS if admin else payloads.MEMBER_PERMISSIONS,
        )
        return await self.push(payload)

    async def submit(self, actor: dict, custom_id: str, values: dict[str, str], *, guild: dict | None = None,
                     channel: dict | None = None) -> InteractionRecord:
        guild_id, channel = self._where(guild, channel)
        payload = payloads.modal_submit(self.app_id, custom_id, values, actor=actor, guild_id=guild_id, channel=channel)
        return await self.push(payload)

    def _record_for_token(self, token: str) -> InteractionRecord | None:
        return self._by_token.get(token)

    def _new_message(self, channel_id: str, body: dict, *, guild_id: str | None = None, nonce: str | None = None,
                     interaction: InteractionRecord | None = None, files: list | None = None) -> dict:
        message_id = payloads.snowflake()
        message = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "author": self.bot_user,
            "content": body.get("content") or "",
            "timestamp": datetime.now(timezone.utc).isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "pinned": False,
            "type": 0 if interaction is None else 20,
            "flags": int(body.get("flags") or 0),
            "application_id": str(self.app_id),
        }
        if guild_id:
            message["guild_id"] = str(guild_id)
        if nonce is not None:
            message["nonce"] = nonce
        reference = body.get("message_reference")
        if reference and self.messages.get(int(reference.get("message_id") or 0)):
            message["message_reference"] = {"message_id": str(reference["message_id"]), "channel_id": str(channel_id)}
            message["type"] = 19  # a reply
        if interaction is not None:
            actor = interaction.payload.get("member", {}).get("user") or interaction.payload.get("user")
            message["interaction_metadata"] = {"id": interaction.id, "type": interaction.payload["type"], "user": actor}
        message["attachments"] = self._attachments(body, files or [], [])
        self.messages[message_id] = message
        return message

    def _attachments(self, body: dict, files: list, existing: list[dict]) -> list[dict]:
        """The message's attachments after this request: the files it uploads (`files[n]`,
        described by the payload's `attachments` entry with id n) and the existing ones the
        payload keeps by their id. Without an `attachments` list, every file is new and the
        existing ones stay."""
        uploaded = {index: (name, data) for index, name, data in files}
        listed = body.get("attachments")
        if listed is None:
            listed = [*({"id": a["id"]} for a in existing), *({"id": i} for i in sorted(uploaded))]
        kept = {a["id"]: a for a in existing}
        out = []
        for item in listed:
            key = item.get("id")
            if str(key) in kept:
                out.append(kept[str(key)])
                continue
            if (isinstance(key, str) and not key.isdigit()) or int(key) not in uploaded:
                continue
            name, data = uploaded[int(key)]
            attachment_id = payloads.snowflake()
            self.attachment_bytes[attachment_id] = data
            filename = item.get("filename") or name
            attachment = {"id": str(attachment_id), "filename": filename, "size": len(data),
                          "url": f"{self.base_url}/attachments/{attachment_id}/{filename}",
                          "proxy_url": f"{self.base_url}/attachments/{attachment_id}/{filename}",
                          "content_type": "image/png" if data[:8] == PNG_SIGNATURE else "application/octet-stream"}
            if item.get("description"):
                attachment["description"] = item["description"]
            if data[:8] == PNG_SIGNATURE and len(data) >= 24:  # width and height from the IHDR chunk
                attachment["width"], attachment["height"] = struct.unpack(">II", data[16:24])
            out.append(attachment)
        return out

    def _edit(self, message: dict, body: dict, files: list | None = None) -> dict:
        for key in ("content", "embeds", "components"):
            if key in body and body[key] is not None:
                message[key] = body[key]
        if files or body.get("attachments") is not None:
            message["attachments"] = self._attachments(body, files or [], message.get("attachments") or [])
        if "flags" in body and body["flags"] is not None:
            message["flags"] = (message["flags"] & EPHEMERAL) | int(body["flags"])
        message["flags"] &= ~LOADING
        message["edited_timestamp"] = datetime.now(timezone.utc).isoformat()
        return message

    async def _callback(self, request: web.Request) -> web.Response:
        record = self.interactions.get(request.match_info["id"])
        body = request[BODY] or {}
        if record is None or record.token != request.match_info["token"]:
            return _error(404, 10062, "Unknown interaction")
        if self.now() - record.dispatched_at > FIRST_RESPONSE_DEADLINE_S:
            record.rejected.append(("late", 404, body))
            record.notify()
            return _error(404, 10062, "Unknown interaction")
        if record.callbacks:
            record.rejected.append(("second initial response", 400, body))
            record.notify()
            return _error(400, 40060, "Interaction has already been acknowledged.")
        kind, data = body.get("type"), body.get("data") or {}
        files = request[FILES]
        problems = modal_problems(data) if kind == RESPONSE_MODAL else message_problems(data, files)
        if problems:
            record.rejected.append(("invalid", 400, body))
            record.notify()
            return _error(400, 50035, "Invalid Form Body", problems)
        channel_id = record.payload["channel_id"]
        guild_id = record.payload.get("guild_id")
        message = None
        if kind == RESPONSE_MESSAGE:
            message = self._new_message(channel_id, data, guild_id=guild_id, interaction=record, files=files)
        elif kind == RESPONSE_DEFER:
            flags = (int(data.get("flags") or 0) & EPHEMERAL) | LOADING
            message = self._new_message(channel_id, {"flags": flags}, guild_id=guild_id, interaction=record)
        elif kind in (RESPONSE_UPDATE, RESPONSE_DEFER_UPDATE):
            source = record.payload.get("message") or {}
            message = self.messages.get(int(source.get("id", 0)))
            if message is not None and kind == RESPONSE_UPDATE:
                self._edit(message, data, files)
        elif kind == RESPONSE_MODAL:
            record.modal = data
        if message is not None:
            record.original_message_id = int(message["id"])
        record.callbacks.append((self.now(), kind, data))
        record.notify()
        response = {"interaction": {"id": record.id, "type": record.payload["type"],
                                    "response_message_loading": kind == RESPONSE_DEFER,
                                    "response_message_ephemeral": bool(message and message["flags"] & EPHEMERAL)}}
        if message is not None:
            response["interaction"]["response_message_id"] = message["id"]
            response["resource"] = {"type": kind, "message": message}
        return _json(response)

    def _token_problem(self, record: InteractionRecord | None) -> web.Response | None:
        if record is None or self.now() - record.dispatched_at > TOKEN_LIFETIME_S:
            if record is not None:
                record.rejected.append(("expired token", 401, {}))
                record.notify()
            return _error(401, 50027, "Invalid Webhook Token")
        if not record.callbacks:
            return _error(404, 10015, "Unknown Webhook")
        return None

    async def _followup(self, request: web.Request) -> web.Response:
        record = self._record_for_token(request.match_info["token"])
        problem = self._token_problem(record)
        if problem:
            return problem
        body = request[BODY] or {}
        files = request[FILES]
        problems = message_problems(body, files)
        if problems:
            record.rejected.append(("invalid followup", 400, body))
            record.notify()
            return _error(400, 50035, "Invalid Form Body", problems)
        loading = self.messages.get(record.original_message_id or 0)
        if loading is not None and loading["flags"] & LOADING and not record.followups:
            # Discord: the first followup after a "thinking" defer replaces the placeholder.
            message = self._edit(loading, body, files)
        else:
            message = self._new_message(record.payload["channel_id"], body, guild_id=record.payload.get("guild_id"),
                                        interaction=record, files=files)
        record.followups.append(message)
        record.landed.append(self.now())
        record.notify()
        return _json(message)

    async def _webhook_message(self, request: web.Request) -> web.Response:
        record = self._record_for_token(request.match_info["token"])
        problem = self._token_problem(record)
        if problem:
            return problem
        wanted = request.match_info["message"]
        message_id = record.original_message_id if wanted == "@original" else int(wanted)
        message = self.messages.get(message_id or 0)
        if message is None:
            return _error(404, 10008, "Unknown Message")
        if request.method == "GET":
            return _json(message)
        if request.method == "DELETE":
            self.messages.pop(message_id, None)
            record.notify()
            return web.Response(status=204)
        body = request[BODY] or {}
        files = request[FILES]
        problems = message_problems({**message, **{k: v for k, v in body.items() if v is not None}}, files)
        if problems:
            record.rejected.append(("invalid edit", 400, body))
            record.notify()
            return _error(400, 50035, "Invalid Form Body", problems)
        self._edit(message, body, files)
        record.edits += 1
        record.landed.append(self.now())
        record.notify()
        return _json(message)

    # ----- channels -----
    async def _create_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        if channel_id in self.forbidden_channels:
            return _error(403, 50013, "Missing Permissions")
        channel = self.channels.get(channel_id)
        if channel is None:
            return _error(404, 10003, "Unknown Channel")
        body = request[BODY] or {}
        files = request[FILES]
        if files and channel_id in self.no_attach_channels:
            return _error(403, 50013, "Missing Permissions")
        problems = message_problems(body, files)
        if problems:
            return _error(400, 50035, "Invalid Form Body", problems)
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce"):
            existing = self.nonces.get((channel_id, str(nonce)))
            if existing in self.messages:
                return _json(self.messages[existing])
        message = self._new_message(str(channel_id), body, guild_id=channel.get("guild_id"), nonce=nonce, files=files)
        if nonce is not None:
            self.nonces[(channel_id, str(nonce))] = int(message["id"])
        return _json(message)

    async def _list_messages(self, request: web.Request) -> web.Response:
        """A channel's history, newest first: `limit` (1-100, default 50), `before`, `after`."""
        channel_id = int(request.match_info["channel"])
        if channel_id in self.forbidden_channels:
            return _error(403, 50013, "Missing Permissions")
        if channel_id not in self.channels:
            return _error(404, 10003, "Unknown Channel")
        query = request.query
        limit = min(max(int(query.get("limit", 50)), 1), 100)
        history = sorted(self.channel_messages(channel_id, replies=True), key=lambda m: int(m["id"]), reverse=True)
        if "before" in query:
            history = [m for m in history if int(m["id"]) < int(query["before"])]
        if "after" in query:
            history = [m for m in history if int(m["id"]) > int(query["after"])][-limit:]
        history = [{k: v for k, v in m.items() if k != "nonce"} for m in history[:limit]]  # history carries no nonce
        return _json(history)

    async def _channel_message(self, request: web.Request) -> web.Response:
        channel_id, message_id = int(request.match_info["channel"]), int(request.match_info["message"])
        if channel_id in self.forbidden_channels:
            return _error(403, 50013, "Missing Permissions")
        message = self.messages.get(message_id)
        if message is None or message["channel_id"] != str(channel_id):
            return _error(404, 10008, "Unknown Message")
        if request.method == "GET":
            return _json(message)
        if request.method == "DELETE":
            self.messages.pop(message_id)
            return web.Response(status=204)
        body = request[BODY] or {}
        files = request[FILES]
        problems = message_problems({**message, **{k: v for k, v in body.items() if v is not None}}, files)
        if problems:
            return _error(400, 50035, "Invalid Form Body", problems)
        return _json(self._edit(message, body, files))

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self.channels.get(int(request.match_info["channel"]))
        return _json(channel) if channel else _error(404, 10003, "Unknown Channel")

    async def _create_dm(self, request: web.Request) -> web.Response:
        recipient_id = int((request[BODY] or {})["recipient_id"])
        for channel in self.channels.values():
            if channel["type"] == 1 and channel["recipients"][0]["id"] == str(recipient_id):
                return _json(channel)
        recipient = self.users.get(recipient_id) or payloads.user(recipient_id, f"user{recipient_id}")
        channel = payloads.dm_channel(payloads.snowflake(), recipient)
        self.channels[int(channel["id"])] = channel
        return _json(channel)

    async def _get_member(self, request: web.Request) -> web.Response:
        guild_id, user_id = int(request.match_info["guild"]), int(request.match_info["user"])
        if guild_id not in self.guilds:
            return _error(404, 10004, "Unknown Guild")
        user = self.users.get(user_id)
        if user is None:
            return _error(404, 10007, "Unknown Member")
        member = payloads.member(user)
        member["nick"] = self.nicks.get((guild_id, user_id))
        return _json(member)

    async def _get_attachment(self, request: web.Request) -> web.Response:
        data = self.attachment_bytes.get(int(request.match_info["id"]))
        if data is None:
            return _error(404, 0, "Unknown attachment")
        kind = self.attachment_types.get(int(request.match_info["id"])) or (
            "image/png" if data[:8] == PNG_SIGNATURE else "application/octet-stream")
        return web.Response(body=data, headers={"Content-Type": kind})

    async def _typing(self, request: web.Request) -> web.Response:
        if int(request.match_info["channel"]) not in self.channels:
            return _error(404, 10003, "Unknown Channel")
        return web.Response(status=204)

    async def _unknown(self, request: web.Request) -> web.Response:
        return _error(404, 0, f"fake Discord does not serve {request.method} {request.path}")

    # ----- convenience for tests -----
    async def reply(self, record: InteractionRecord, timeout: float = 60.0) -> dict:
        """What the user ends up seeing for an interaction, once it has landed: the new or
        updated message (a "thinking" placeholder or a silent defer is waited through)."""
        def settled(r):
            if not r.callbacks:
                return None
            kind = r.response_type
            message = self.messages.get(r.original_message_id or 0)
            if kind in (RESPONSE_MESSAGE, RESPONSE_UPDATE):
                return message
            if kind == RESPONSE_DEFER:
                return message if message is not None and not message["flags"] & LOADING else None
            if kind == RESPONSE_DEFER_UPDATE:
                return r.followups[-1] if r.followups else (message if r.edits else None)
            return r.modal

        return await record.wait(settled, timeout)

    def requests_to(self, method: str, fragment: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == method and fragment in r.path]
