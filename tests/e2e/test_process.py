"""`coach run` as a real process with DISCORD_TOKEN set: it connects to the fake
Discord, and a quiz survives the process being killed (SIGKILL) mid-way."""

import asyncio
import copy
import os
import signal
from pathlib import Path

import aiohttp

from tests.e2e.conftest import UPDATED, TRACKS, button, closed_port

REPO = Path(__file__).parents[2]


async def spawn_bot(fake, tmp_path, metrics_port: int = 0):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "LLM_"))}
    env.update(
        DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/coach.db", DATA_DIR=str(tmp_path), CONTENT_DIR=str(TRACKS),
        LLM_BASE_URL=f"http://127.0.0.1:{closed_port()}/v1", METRICS_PORT=str(metrics_port), PYTHONPATH=str(REPO),
    )
    fake.commands_synced.clear()
    proc = await asyncio.create_subprocess_exec(str(REPO / ".venv" / "bin" / "coach"), "run", env=env, cwd=tmp_path,
                                                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        await asyncio.wait_for(fake.commands_synced.wait(), 60)
        await asyncio.wait_for(_connected(fake), 30)
    except TimeoutError:
        proc.kill()
        raise AssertionError((await proc.stderr.read()).decode()[-3000:])
    return proc


async def _connected(fake):
    while not fake.gateways:
        await asyncio.sleep(0.05)


async def test_bot_process_survives_sigkill_mid_quiz(fake, tmp_path):
    guild, user = fake.add_guild(), fake.add_user("user")
    first = await spawn_bot(fake, tmp_path)
    try:
        start = await fake.slash(user, "quiz", guild=guild, options={"count": 5})
        await start.acknowledged(timeout=30)
        message = copy.deepcopy(await fake.reply(start))
        click = await fake.click(user, message, button(message, "A")["custom_id"])
        assert await click.acknowledged() in UPDATED
        answered = copy.deepcopy(await fake.reply(click))
    finally:
        first.send_signal(signal.SIGKILL)
        await first.wait()
    while fake.gateways:
        await asyncio.sleep(0.05)

    port = closed_port()
    second = await spawn_bot(fake, tmp_path, metrics_port=port)
    try:
        nxt = await fake.click(user, answered, button(answered, "Next")["custom_id"])
        assert await nxt.acknowledged(timeout=30) in UPDATED
        assert (await fake.reply(nxt))["embeds"][0]["title"].startswith("Quiz · 2/5")
        async with aiohttp.ClientSession() as http:
            for _ in range(100):  # discord.py reports ready once the guilds have streamed in
                async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                    health = await response.json()
                if health["ready"]:
                    break
                await asyncio.sleep(0.1)
            async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
                metrics = await response.text()
        assert health["ready"] and health["checks"]["database"] and health["checks"]["discord"], health
        assert "llm" in health["degraded"], "the LLM is down: reported, not required"
        assert 'coach_interactions_total{kind="button",outcome="question"} 1.0' in metrics
    finally:
        second.send_signal(signal.SIGTERM)
        await second.wait()
