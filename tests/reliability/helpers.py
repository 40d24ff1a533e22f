"""Small readers over the fake Discord's messages, and the database audits the tests share."""

from __future__ import annotations

import asyncio
import copy
import re
import time
from coach.config import load_settings
from coach.engine import Coach
from coach.store import Store
from content import default_catalog
from tests.fakediscord.components import button, buttons  # noqa: F401 - re-exported to the tests

FIRST_RESPONSE_DEADLINE_S = 3.0
ANSWERED_TITLE = re.compile(r"^\d+/\d+ · ")  # the embed after a question is answered
XP_CORRECT, XP_FINISH = 10, 20  # coach.progress.xp's amounts, restated so a silent change is caught


def title(message: dict) -> str:
    return message["embeds"][0]["title"] if message.get("embeds") else ""


def snapshot(fake, message_id) -> dict:
    """The message as a user's client shows it now (later edits do not change it)."""
    return copy.deepcopy(fake.messages[int(message_id)])


async def click(fake, user, message: dict, label: str) -> dict:
    """Press a button and return what the user then sees (a direct answer or, when the
    bot deferred, the message once the follow-up or edit has landed)."""
    record = await fake.click(user, message, button(message, label)["custom_id"])
    await record.acknowledged(timeout=15)
    return await fake.reply(record, timeout=30)


async def slash(fake, user, name: str, **kwargs) -> tuple[object, dict]:
    record = await fake.slash(user, name, **kwargs)
    await record.acknowledged(timeout=15)
    return record, await fake.reply(record, timeout=30)


async def answer_and_next(fake, user, message_id, letter: str) -> dict:
    """Answer the question on screen, then press Next/Finish; returns the message after."""
    answered = await click(fake, user, fake.messages[int(message_id)], letter)
    assert ANSWERED_TITLE.match(title(answered)), title(answered)
    label = "Finish" if any(b["label"] == "Finish" for b in buttons(answered)) else "Next"
    return await click(fake, user, answered, label)


def assert_interactions_healthy(fake, ignore: tuple[str, ...] = ()) -> None:
    """Every interaction the bot got was acknowledged in time and nothing was refused
    (`ignore`: interactions whose response the test itself dropped)."""
    for record in fake.interactions.values():
        if record.id in ignore:
            continue
        assert record.first_response_latency is not None, f"interaction {record.id} never acknowledged"
        assert record.first_response_latency < FIRST_RESPONSE_DEADLINE_S, record.first_response_latency
        assert not record.rejected, record.rejected


def quiz_audit(bots, user_id: int) -> dict:
    """What the database holds for one user's quizzes: answers, sessions and XP."""
    answers = bots.query(
        "SELECT session_id, question_index, correct FROM quiz_answers WHERE user_id = ? ORDER BY session_id, question_index",
        user_id,
    )
    sessions = bots.query("SELECT id, status, position FROM quiz_sessions WHERE user_id = ?", user_id)
    xp = bots.query("SELECT source_key, amount FROM xp_events WHERE user_id = ?", user_id)
    return {"answers": answers, "sessions": sessions, "xp": xp, "xp_total": sum(a for _, a in xp),
            "correct": sum(1 for *_, c in answers if c)}




async def wait_until(predicate, timeout: float, what: str):
    """Poll `predicate` (bounded); returns its first truthy value."""
    deadline = time.perf_counter() + timeout
    while not (value := predicate()):
        assert time.perf_counter() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return value


async def schedule_daily_post(bots, guild_id: int, channel_id: int) -> str:
    """Arrange: the guild posts daily at 00:00 UTC, so today's post is already due."""
    settings = load_settings(database_url=f"sqlite+aiosqlite:///{bots.db_path}", data_dir=bots.workdir)
    store = Store(settings.database_url)
    try:
        await store.upgrade()
        catalog = default_catalog()
        track = next(iter(catalog.tracks))
        await Coach(store, catalog, settings).daily.set_schedule(guild_id, channel_id, "00:00", "UTC", track)
    finally:
        await store.dispose()
    return track
