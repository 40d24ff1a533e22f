"""Process-level fault tests: the real bot process, SIGKILLed and restarted on the
same SQLite database, against the in-process fake Discord."""

from __future__ import annotations

import asyncio
import socket
import time
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from tests.reliability.botproc import IDENTIFY_WINDOW_S, BotProcess, bot_environment
from tests.reliability.holding_fake import HoldingFakeDiscord


def closed_port_url() -> str:
    """An LLM URL nobody listens on: grading takes the labelled embedding fallback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


@pytest.fixture
async def fake():
    server = await HoldingFakeDiscord(identify_window_s=IDENTIFY_WINDOW_S).start()
    yield server
    for hold in server.holds:
        hold.released.set()
    await server.stop()


class Bots:
    """Starts bot processes one after another on the same work folder and database."""

    def __init__(self, fake, workdir: Path, data_dir: Path | None = None):
        self.fake, self.workdir = fake, workdir
        self.env = bot_environment(
            fake, workdir, LLM_BASE_URL=closed_port_url(), LLM_TIMEOUT_S="2", LLM_MAX_RETRIES="0",
            **({"DATA_DIR": str(data_dir)} if data_dir else {}),
        )
        self.started: list[BotProcess] = []

    @property
    def db_path(self) -> Path:
        return self.workdir / "coach.db"

    async def start(self) -> BotProcess:
        bot = BotProcess(self.fake, self.workdir, self.env, f"bot{len(self.started) + 1}")
        self.started.append(bot)
        return await bot.start()

    def query(self, sql: str, *params) -> list[tuple]:
        """Read the bot's database directly (what is stored, not what the bot says)."""
        with closing(sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True, timeout=10)) as db:
            return db.execute(sql, params).fetchall()

    async def models_loaded(self, bot: BotProcess, timeout: float = 240.0) -> float:
        """Wait until the bot has loaded its embedding model and grader (it does so in the
        background after connecting); returns the seconds it reported."""
        deadline = time.perf_counter() + timeout
        while True:
            for line in bot.log_lines():
                if line.get("event") == "models loaded":
                    return float(line.get("seconds", 0))
                if line.get("event") == "warm-up failed":
                    raise AssertionError(f"{bot.name} could not load its models:\n{bot.log_tail()}")
            assert time.perf_counter() < deadline, f"{bot.name} did not load its models in {timeout}s"
            await asyncio.sleep(0.2)

    def assert_no_errors_logged(self) -> None:
        """No process logged an error: a handled fault is a warning, an error is a bug."""
        for bot in self.started:
            errors = bot.errors()
            assert not errors, f"{bot.name} logged errors: {[e.get('event') for e in errors][:5]}\n{errors[0].get('exc', '')}"

    async def stop_all(self) -> None:
        stopped = [await bot.terminate() for bot in self.started]
        if any(stopped):
            await self.started[0]._wait_disconnected()  # every process's gateways


@pytest.fixture(scope="session")
def shared_data_dir(tmp_path_factory) -> Path:
    """One DATA_DIR for every bot process of the session: the retrieval index is built
    by the first and loaded (not re-encoded) by the others."""
    return tmp_path_factory.mktemp("bot-data")


@pytest.fixture
async def bots(fake, tmp_path, shared_data_dir):
    group = Bots(fake, tmp_path, shared_data_dir)
    yield group
    await group.stop_all()
