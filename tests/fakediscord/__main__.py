"""Run the fake Discord on its own: `python -m tests.fakediscord [--port N] [--guilds N]`.

It prints the environment that points a bot at it (DISCORD_TOKEN, DISCORD_API_BASE,
DISCORD_GATEWAY_URL) and serves a small control API for driving it by hand:

    POST /_fake/slash  {"user": "alice", "guild": 0, "name": "quiz", "options": {...}, "admin": false}
    POST /_fake/click  {"user": "alice", "message_id": "...", "custom_id": "..."}
    GET  /_fake/interactions/<id>   callbacks, followups and rejections of one interaction
    GET  /_fake/stats               requests seen, interactions, acknowledgement latencies
"""

from __future__ import annotations

import argparse
import asyncio
import json

from aiohttp import web

from tests.fakediscord.server import FakeDiscord, _json


def control_routes(fake: FakeDiscord, guilds: list[dict]) -> list[web.RouteDef]:
    users: dict[str, dict] = {}

    def user(name: str) -> dict:
        if name not in users:
            users[name] = fake.add_user(name)
        return users[name]

    async def slash(request: web.Request) -> web.Response:
        body = await request.json()
        record = await fake.slash(user(body["user"]), body["name"], guild=guilds[int(body.get("guild", 0))],
                                  options=body.get("options"), subcommand=body.get("subcommand"),
                                  admin=bool(body.get("admin")))
        return _json({"id": record.id})

    async def click(request: web.Request) -> web.Response:
        body = await request.json()
        record = await fake.click(user(body["user"]), fake.messages[int(body["message_id"])], body["custom_id"])
        return _json({"id": record.id})

    async def interaction(request: web.Request) -> web.Response:
        record = fake.interactions[request.match_info["id"]]
        return _json({"callbacks": [{"type": t, "data": d} for _, t, d in record.callbacks],
                      "latency": record.first_response_latency, "followups": record.followups,
                      "original": fake.messages.get(record.original_message_id or 0), "rejected": record.rejected})

    async def stats(_request) -> web.Response:
        latencies = [r.first_response_latency for r in fake.interactions.values() if r.callbacks]
        return _json({"requests": len(fake.requests), "interactions": len(fake.interactions),
                      "acknowledged": len(latencies), "max_latency": max(latencies, default=None)})

    return [web.post("/_fake/slash", slash), web.post("/_fake/click", click),
            web.get("/_fake/interactions/{id}", interaction), web.get("/_fake/stats", stats)]


async def serve(port: int = 0, guild_count: int = 1) -> tuple[FakeDiscord, list[dict]]:
    """Start a fake with `guild_count` servers and the control API."""
    fake = FakeDiscord()
    guilds = [fake.add_guild(f"Server {i}") for i in range(guild_count)]
    original_routes = fake._routes

    def routes_with_control(app: web.Application) -> None:
        app.add_routes(control_routes(fake, guilds))
        original_routes(app)

    fake._routes = routes_with_control
    await fake.start(port)
    return fake, guilds


async def main(port: int, guild_count: int) -> None:
    fake, guilds = await serve(port, guild_count)
    print(json.dumps({"DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                      "DISCORD_GATEWAY_URL": fake.gateway_url, "guilds": [g["id"] for g in guilds]}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--guilds", type=int, default=1)
    args = parser.parse_args()
    try:
        asyncio.run(main(args.port, args.guilds))
    except KeyboardInterrupt:
        pass
