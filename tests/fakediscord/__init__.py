"""A local fake Discord (REST + gateway) for end-to-end tests of the real discord.py client."""

from tests.fakediscord.records import Fault, InteractionRecord, RecordedRequest
from tests.fakediscord.server import FakeDiscord

__all__ = ["FakeDiscord", "Fault", "InteractionRecord", "RecordedRequest", "point_discord_at"]


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """Aim discord.py's REST and gateway URLs at a fake (process-wide)."""
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
