"""The JSON Discord receives for every registered slash command (names, options, choices,
descriptions, permissions) is frozen in tests/bot/snapshots/commands.json: a refactor that
changes what members see in Discord's command picker fails here, byte for byte.

To accept an intended change, regenerate it: `python -m tests.bot.test_command_snapshot`."""

from __future__ import annotations

import json
from pathlib import Path

import discord
from discord import app_commands

SNAPSHOT = Path(__file__).parent / "snapshots" / "commands.json"


def registered_json() -> str:
    from bot.discord import commands

    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    commands.register(tree, adapter=None, handlers=None, track_ids=["inference"])
    payload = sorted((c.to_dict(tree) for c in tree.get_commands()), key=lambda c: c["name"])
    return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def test_registered_commands_are_byte_identical_to_the_snapshot():
    assert registered_json() == SNAPSHOT.read_text(encoding="utf-8")


def test_the_snapshot_holds_every_option_and_choice():
    # guards against a snapshot that lost its detail (e.g. regenerated from an empty tree)
    commands = {c["name"]: c for c in json.loads(SNAPSHOT.read_text(encoding="utf-8"))}
    assert {"quiz", "explain", "stats", "daily"} <= set(commands)
    quiz_track = next(o for o in commands["quiz"]["options"] if o["name"] == "track")
    assert quiz_track["choices"] == [{"name": "inference", "value": "inference"}]
    assert all(c["description"] for c in commands.values())


if __name__ == "__main__":
    SNAPSHOT.write_text(registered_json(), encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
