"""The real discord.py client (bot.discord.client.CoachBot) against the in-process fake Discord.

One embedding model per test session (the `topics` fixture); a fresh database and a
fresh fake Discord per test. The LLM URL points at a closed port, so grading takes
the labelled embedding fallback.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest

from bot.discord.client import CoachBot
from bot.services import build_services
from coach.config import load_settings
from content import load_catalog
from tests.fakediscord import FakeDiscord, point_discord_at
from tests.fakediscord.components import button, buttons  # noqa: F401 - re-exported to the tests

TRACKS = Path(__file__).parent / "tracks"
# Discord spaces identifies 5 s apart per bucket; the fake and the bot agree on less, so a
# restart in a test does not wait (the spacing itself is tested in tests/e2e/test_shards.py).
IDENTIFY_WINDOW_S = 0.2


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(TRACKS)


@pytest.fixture(scope="session")
def topics(catalog, tmp_path_factory):
    from coach.topics import TopicFinder

    settings = load_settings(data_dir=tmp_path_factory.mktemp("index"))
    return TopicFinder.from_settings(settings, catalog)


@pytest.fixture(scope="session")
def warm_speech():
    """The real tiny.en model, loaded once for the voice tests and shared by their bots
    (test_voice_pool.py starts the bot's own worker pool instead)."""
    from bot.speech import SharedSpeech
    from coach.voice.answer import InProcessSpeech
    from serving.speech import SpeechOptions, Transcriber

    return SharedSpeech(InProcessSpeech(Transcriber(SpeechOptions(threads=2))))


@pytest.fixture
def settings(tmp_path):
    return load_settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path}/coach.db",
        data_dir=tmp_path,
        discord_token="fake-bot-token",
        llm_base_url=f"http://127.0.0.1:{closed_port()}/v1",
        llm_timeout_s=1.0,
        llm_max_retries=0,
        explain_rate_limit=3,
        explain_rate_window_s=600,
        picture_workers=0,  # no worker process for tests that draw nothing (test_pictures.py starts one)
        speech_workers=0,  # nor for speech (test_voice*.py share one warm model or start the pool)
        grader_workers=0,  # nor for the trained grader (test_explain.py starts its pool once)
        discord_identify_window_s=IDENTIFY_WINDOW_S,
    )


@pytest.fixture
async def fake():
    server = await FakeDiscord(identify_window_s=IDENTIFY_WINDOW_S).start()
    point_discord_at(server.api_base, server.gateway_url)
    yield server
    await server.stop()


class Harness:
    """Starts and stops bot processes (clients) on the same database."""

    def __init__(self, fake, settings, catalog, topics):
        self.fake, self.settings, self.catalog, self.topics = fake, settings, catalog, topics
        self.running: list[tuple[CoachBot, asyncio.Task]] = []
        self.speech = None  # a speech-to-text the bots share (the voice tests' warm model)

    async def start(self, clock=None, **settings) -> CoachBot:
        """`settings`: overrides for this client (e.g. its shards), else the test's settings."""
        chosen = self.settings.model_copy(update=settings) if settings else self.settings
        services = await build_services(chosen, catalog=self.catalog, clock=clock, topics=self.topics,
                                        speech=self.speech)
        bot = CoachBot(services, background=False, guild_ready_timeout=0.1)
        task = asyncio.create_task(bot.start(self.settings.discord_token.get_secret_value()))
        self.running.append((bot, task))
        await asyncio.wait_for(bot.synced.wait(), 10)
        await asyncio.wait_for(bot.wait_until_ready(), 10)
        return bot

    async def stop(self, bot: CoachBot) -> None:
        for entry in list(self.running):
            if entry[0] is bot:
                self.running.remove(entry)
                await bot.close()
                await asyncio.gather(entry[1], return_exceptions=True)
                await bot.services.close()

    async def stop_all(self) -> None:
        for bot, _ in list(self.running):
            await self.stop(bot)


@pytest.fixture
async def harness(fake, settings, catalog, topics):
    h = Harness(fake, settings, catalog, topics)
    yield h
    await h.stop_all()


# A command's first response may be direct or a "thinking" defer; a click's an update
# or a silent defer followed by an edit. `fake.reply(record)` waits for what lands.
ANSWERED = (4, 5)
UPDATED = (7, 6)
