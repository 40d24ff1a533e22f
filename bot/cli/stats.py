"""`coach stats --png OUT.png [--user ID --guild ID] [--map [--track T] | --week [--start DATE]]`:
the pictures the bot sends, drawn from the configured database through the same handlers
as Discord and the console (by default for the console's user and server). Prints the
text that goes beside the picture; `--json` prints {"png", "bytes", "description", "text"}."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import date
from pathlib import Path

from bot.console.chat import CONSOLE_USER


async def console_names(guild_id: int, user_ids) -> dict[int, str]:
    """Outside Discord there are no display names: the console's user is "you"."""
    return {user_id: "you" if user_id == CONSOLE_USER.user_id else f"member {user_id}" for user_id in user_ids}


async def draw(settings, args):
    from bot.console.chat import format_reply
    from bot.handlers import Actor, Handlers
    from bot.pictures.pool import InlineRenderer
    from bot.services import build_services

    # One picture: drawn in this process (a worker would only add its start-up); no LLM needed.
    services = await build_services(settings.model_copy(update={"llm_enabled": False}),
                                    pictures=InlineRenderer(settings.picture_timeout_s))
    try:
        handlers = Handlers(services)
        user = args.user if args.user is not None else CONSOLE_USER.user_id
        guild = args.guild if args.guild is not None else CONSOLE_USER.guild_id
        name = args.name or ("you" if user == CONSOLE_USER.user_id else f"member {user}")
        actor = Actor(user_id=user, guild_id=guild, name=name)
        if args.week:
            start = date.fromisoformat(args.start) if args.start else None
            reply = await handlers.server_week(actor, args.server or f"Server {guild}", console_names, start)
        else:
            reply = await handlers.stats(actor, "map" if args.map else "progress", args.track)
        return reply, format_reply(reply)
    finally:
        await services.close()


def stats_command(args) -> int:
    from coach.config import get_settings

    reply, text = asyncio.run(draw(get_settings(), args))
    if reply.attachment is None:
        print(f"coach stats: no picture: {text}", file=sys.stderr)
        return 1
    out = Path(args.png)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(reply.attachment.data)
    if args.json:
        print(json.dumps({"png": str(out), "bytes": len(reply.attachment.data),
                          "description": reply.attachment.description, "text": text}, ensure_ascii=False))
    else:
        print(text)
        print(f"Picture: {out}")
    return 0
