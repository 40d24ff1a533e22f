"""The real bot (`coach run`) as a child process, pointed at an in-process fake Discord.

The child reads its configuration from the environment only (it runs in a temp
folder, so no stray `.env` is read); its JSON log lines go to a file the test can read.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

COACH = Path(sys.executable).with_name("coach")
START_TIMEOUT_S = 90.0
IDENTIFY_WINDOW_S = 0.2  # the fake's and the bot's (Discord's is 5 s): restarts need not wait


def bot_environment(fake, workdir: Path, **settings: str) -> dict[str, str]:
    """The child's environment: ours minus any Discord/database/LLM settings, plus the
    fake's URLs, a database in `workdir`, and `settings` (environment variable names)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "LLM_"))}
    env.update(
        DISCORD_TOKEN=fake.token,
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        DATABASE_URL=f"sqlite+aiosqlite:///{workdir / 'coach.db'}",
        DATA_DIR=str(workdir),
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
        METRICS_PORT="0",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OMP_NUM_THREADS="1",  # leave a core for the test process and the fake
        GRADER_WARM_UP="false",  # ~15 s of a core per start; tests/grading/test_embedding_pool.py covers it
        PYTHONUNBUFFERED="1",
        DISCORD_IDENTIFY_WINDOW_S=str(IDENTIFY_WINDOW_S),
    )
    env.update(settings)
    return env


class BotProcess:
    """One `coach run` child. `start()` returns once it is connected and its commands are synced
    (or once `ready()` holds, for a process that syncs nothing or connects nothing at start)."""

    def __init__(self, fake, workdir: Path, env: dict[str, str], name: str):
        self.fake, self.workdir, self.env, self.name = fake, workdir, env, name
        self.log_path = workdir / f"{name}.log"
        self.proc: asyncio.subprocess.Process | None = None
        self.startup_s: float | None = None

    async def start(self, ready=None) -> "BotProcess":
        syncs_before = len(self.fake.requests_to("PUT", "/commands"))
        gateways_before = set(map(id, self.fake.gateways))
        started = time.perf_counter()
        with open(self.log_path, "wb") as log:
            self.proc = await asyncio.create_subprocess_exec(
                str(COACH), "run", cwd=self.workdir, env=self.env,
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
            )
        deadline = started + START_TIMEOUT_S
        while True:
            synced = len(self.fake.requests_to("PUT", "/commands")) > syncs_before
            connected = any(id(ws) not in gateways_before for ws in self.fake.gateways)
            if ready() if ready is not None else synced and connected:
                break
            if self.proc.returncode is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode} during start:\n{self.log_tail()}")
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{self.name} did not connect within {START_TIMEOUT_S}s:\n{self.log_tail()}")
            await asyncio.sleep(0.05)
        self.startup_s = time.perf_counter() - started
        return self

    async def kill(self, shards=None) -> None:
        """SIGKILL: no shutdown code runs; then wait until the fake saw the gateway drop
        (every gateway, or the sessions on `shards` when other processes stay connected)."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(self.proc.wait(), 10)
        await self._wait_disconnected(shards)

    async def stop(self, shards=None) -> None:
        if await self.terminate():
            await self._wait_disconnected(shards)

    async def terminate(self) -> bool:
        """SIGTERM (SIGKILL after 10 s); False if it was not running."""
        if self.proc is None or self.proc.returncode is not None:
            return False
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
        return True

    async def _wait_disconnected(self, shards=None, timeout: float = 10.0) -> None:
        def still_connected():
            if shards is None:
                return self.fake.gateways
            return [s for shard in shards for s in self.fake.gateway.sessions_on(shard)]

        deadline = time.perf_counter() + timeout
        while still_connected() and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        assert not still_connected(), "the fake Discord still holds a gateway of the dead process"

    def log_lines(self) -> list[dict]:
        lines = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                lines.append({"event": raw})
        return lines

    def log_tail(self, n: int = 40) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:]) if self.log_path.exists() else ""

    def logged(self, event: str) -> list[dict]:
        return [line for line in self.log_lines() if line.get("event") == event]

    def errors(self) -> list[dict]:
        return [line for line in self.log_lines() if line.get("level") in ("error", "critical")]
