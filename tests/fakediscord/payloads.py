"""Builders for the JSON objects Discord sends: users, guilds, members, channels,
interactions. Only the fields discord.py 2.7 reads are filled in."""

from __future__ import annotations

import itertools
import time

# Discord's epoch (2015-01-01) in ms; snowflakes carry a timestamp in their high bits.
_DISCORD_EPOCH_MS = 1_420_070_400_000
_counter = itertools.count(1)

ADMIN_PERMISSIONS = str((1 << 5) | (1 << 3))  # MANAGE_GUILD | ADMINISTRATOR
MEMBER_PERMISSIONS = str((1 << 10) | (1 << 11) | (1 << 31))  # VIEW_CHANNEL | SEND_MESSAGES | USE_APP_COMMANDS
# VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | ATTACH_FILES | USE_APP_COMMANDS
BOT_PERMISSIONS = str((1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 31))


def snowflake() -> int:
    """A unique, time-ordered id, like Discord's."""
    ms = int(time.time() * 1000) - _DISCORD_EPOCH_MS
    return (ms << 22) | (next(_counter) & 0x3FFFFF)


def snowflake_on_shard(shard_id: int, shard_count: int) -> int:
    """A unique id whose guild shard `(id >> 22) % shard_count` is `shard_id` (its timestamp
    moved forward by less than `shard_count` milliseconds)."""
    flake = snowflake()
    ms = flake >> 22
    ms += (shard_id - ms) % shard_count
    return (ms << 22) | (flake & 0x3FFFFF)


def user(user_id: int, name: str, *, bot: bool = False) -> dict:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
        "flags": 0,
    }


def member(user_payload: dict, *, permissions: str = MEMBER_PERMISSIONS, roles: list[str] | None = None) -> dict:
    return {
        "user": user_payload,
        "roles": roles or [],
        "joined_at": "2025-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
        "permissions": permissions,
        "nick": None,
        "avatar": None,
    }


def text_channel(channel_id: int, guild_id: int, name: str, position: int = 0) -> dict:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
    }


def dm_channel(channel_id: int, recipient: dict) -> dict:
    return {"id": str(channel_id), "type": 1, "recipients": [recipient], "last_message_id": None}


def guild(guild_id: int, name: str, owner_id: int, channels: list[dict], members: list[dict]) -> dict:
    everyone = {
        "id": str(guild_id),
        "name": "@everyone",
        "permissions": MEMBER_PERMISSIONS,
        "position": 0,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "owner_id": str(owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [everyone],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "description": None,
        "banner": None,
        "premium_tier": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": None,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "unavailable": False,
        "member_count": len(members),
        "large": False,
        "joined_at": "2025-01-01T00:00:00+00:00",
        "channels": channels,
        "threads": [],
        "members": members,
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def application(app_id: int, owner: dict) -> dict:
    return {
        "id": str(app_id),
        "name": "Interview Coach",
        "icon": None,
        "description": "",
        "rpc_origins": [],
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": owner,
        "summary": "",
        "verify_key": "0" * 64,
        "team": None,
        "flags": 0,
        "interactions_endpoint_url": None,
    }


def _interaction_base(
    kind: int, app_id: int, *, actor: dict, guild_id: int | None, channel: dict, permissions: str
) -> dict:
    interaction_id = snowflake()
    payload = {
        "id": str(interaction_id),
        "application_id": str(app_id),
        "type": kind,
        "token": f"itok-{interaction_id}",
        "version": 1,
        "locale": "en-US",
        "app_permissions": BOT_PERMISSIONS,
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(guild_id)} if guild_id else {"1": actor["id"]},
        "attachment_size_limit": 8 * 1024 * 1024,
        "channel": channel,
        "channel_id": channel["id"],
        "context": 0 if guild_id else 1,
    }
    if guild_id:
        payload["guild_id"] = str(guild_id)
        payload["guild_locale"] = "en-US"
        payload["member"] = member(actor, permissions=permissions)
    else:
        payload["user"] = actor
    return payload


def command_option(name: str, value) -> dict:
    kind = 4 if isinstance(value, int) and not isinstance(value, bool) else 5 if isinstance(value, bool) else 3
    return {"name": name, "type": kind, "value": value}


def slash_command(
    app_id: int,
    command: dict,
    *,
    actor: dict,
    guild_id: int | None,
    channel: dict,
    options: dict | None = None,
    subcommand: str | None = None,
    permissions: str = MEMBER_PERMISSIONS,
    resolved: dict | None = None,
) -> dict:
    """An APPLICATION_COMMAND interaction for a registered `command` (the synced JSON)."""
    declared = command.get("options") or []
    if subcommand:
        declared = next((o.get("options") or [] for o in declared if o["name"] == subcommand), [])
    types = {o["name"]: o["type"] for o in declared}
    opts = []
    for name, value in (options or {}).items():
        option = command_option(name, value)
        if name in types:  # the type the command was synced with (e.g. 7 = channel)
            option["type"] = types[name]
            if types[name] == 7:
                option["value"] = str(value)
        opts.append(option)
    if subcommand:
        opts = [{"name": subcommand, "type": 1, "options": opts}]
    payload = _interaction_base(2, app_id, actor=actor, guild_id=guild_id, channel=channel, permissions=permissions)
    payload["data"] = {
        "id": command["id"],
        "name": command["name"],
        "type": command.get("type", 1),
        "options": opts,
    }
    if guild_id:
        payload["data"]["guild_id"] = str(guild_id)
    if resolved:
        payload["data"]["resolved"] = resolved
    return payload


def button_click(
    app_id: int,
    message: dict,
    custom_id: str,
    *,
    actor: dict,
    guild_id: int | None,
    channel: dict,
    permissions: str = MEMBER_PERMISSIONS,
) -> dict:
    payload = _interaction_base(3, app_id, actor=actor, guild_id=guild_id, channel=channel, permissions=permissions)
    payload["data"] = {"custom_id": custom_id, "component_type": 2}
    payload["message"] = message
    return payload


def modal_submit(
    app_id: int,
    custom_id: str,
    values: dict[str, str],
    *,
    actor: dict,
    guild_id: int | None,
    channel: dict,
    permissions: str = MEMBER_PERMISSIONS,
) -> dict:
    payload = _interaction_base(5, app_id, actor=actor, guild_id=guild_id, channel=channel, permissions=permissions)
    rows = [
        {"type": 1, "components": [{"type": 4, "custom_id": field_id, "value": value}]}
        for field_id, value in values.items()
    ]
    payload["data"] = {"custom_id": custom_id, "components": rows}
    return payload
