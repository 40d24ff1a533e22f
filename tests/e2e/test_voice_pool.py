"""The bot starts its speech worker pool with itself and stops it on shutdown; the pool's cap
turns a burst of voice messages away politely while quiz clicks keep being answered."""

import asyncio
import os

from tests.voice.conftest import audio


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_pool_starts_and_stops_with_the_bot_and_its_cap_refuses_a_burst(harness, fake):
    harness.settings.speech_workers = 1
    harness.settings.speech_queue = 0  # one recording at a time: the second of a burst is refused
    bot = await harness.start()
    workers = await asyncio.wait_for(bot.services.speech.ready(), 120)
    pids = [info["pid"] for info in workers]
    assert len(pids) == 1 and all(alive(pid) for pid in pids) and os.getpid() not in pids

    guild, alice, bob = fake.add_guild(), fake.add_user("alice"), fake.add_user("bob")
    burst = await asyncio.gather(*(
        fake.send_voice_message(user, fake.dm_channel(user), audio("kv_cache.ogg"), duration=34.6)
        for user in (alice, bob)))
    quiz = await fake.slash(fake.add_user("carol"), "quiz", guild=guild)
    await quiz.acknowledged()
    assert quiz.first_response_latency < 3.0, "a quiz is answered while the worker transcribes"

    replies = [await fake.reply_to(sent) for sent in burst]
    titles = sorted(r["embeds"][0]["title"] if r["embeds"] else r["content"] for r in replies)
    assert titles[0].startswith("I'm transcribing a lot of answers right now. Please try again in a minute.")
    assert titles[1] == "Your answer, as I heard it"

    await harness.stop(bot)
    assert not any(alive(pid) for pid in pids), "the workers end with the bot"
