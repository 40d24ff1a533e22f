"""Voice answers end to end: the real discord.py client against the fake Discord, the real
tiny.en model on the committed recordings (tests/fixtures/audio), the embedding grader.

The transcript comes first ("Grade it", "Fix the transcript"), then the grade with the
delivery under it; it is held in the database, so a restart in between loses nothing."""

import pytest
from sqlalchemy import select

from bot.handlers.voice import HELD_KIND, PROMPT_KIND
from coach.store.models import Attempt, DeliveryRow
from tests.e2e.conftest import ANSWERED, button, buttons
from tests.fakediscord.records import RESPONSE_DEFER, RESPONSE_MODAL
from tests.fakediscord.user_messages import DIRECT_MESSAGES, GUILD_MESSAGES, MESSAGE_CONTENT
from tests.voice.conftest import audio

EPHEMERAL = 1 << 6
KV_SECONDS = 34.6  # kv_cache.ogg, as a client would measure it


@pytest.fixture
def voice(harness, warm_speech):
    harness.speech = warm_speech
    return harness


def labels(message: dict) -> list[str]:
    return [b["label"] for b in buttons(message)]


def fields(message: dict) -> dict[str, str]:
    return {f["name"]: f["value"] for f in message["embeds"][0].get("fields", [])}


async def explain_with_audio(fake, user, guild, upload, topic: str | None = "kv cache") -> dict:
    options = {"topic": topic, "audio": upload} if topic else {"audio": upload}
    record = await fake.slash(user, "explain", guild=guild, options=options)
    assert await record.acknowledged() == RESPONSE_DEFER, "transcribing takes seconds: acknowledged first"
    return await fake.reply(record)


async def press(fake, user, message: dict, label: str) -> dict:
    record = await fake.click(user, message, button(message, label)["custom_id"])
    await record.acknowledged()
    return await fake.reply(record)


async def open_prompt(fake, user, guild, channel=None) -> dict:
    record = await fake.slash(user, "explain", guild=guild, channel=channel, options={"topic": "kv cache"})
    assert await record.acknowledged() in ANSWERED
    return await fake.reply(record)


async def attempts(bot, user) -> list[Attempt]:
    return list(await bot.services.store.read(
        lambda db: db.scalars(select(Attempt).where(Attempt.user_id == int(user["id"])))))


def other_id(bot, title: str) -> str:
    return next(b.id for b in bot.services.catalog.bites.values() if b.title == title)


def assert_graded_with_delivery(message: dict, bite_title: str = "The KV cache") -> None:
    embed = message["embeds"][0]
    assert embed["title"].startswith("Score "), embed
    assert f"Graded against **{bite_title}**" in embed["description"]
    first = embed["fields"][0]
    assert first["name"] == "How you said it", "the delivery comes right under the grade"
    assert "s of speech (target 60 s)" in first["value"] and "words/min" in first["value"]
    assert "Fillers:" in first["value"] and "a floor" in first["value"]
    assert "first sentence" in first["value"]


async def test_attachment_option_transcript_first_then_grade_with_delivery(voice, fake):
    bot = await voice.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    shown = await explain_with_audio(fake, alice, guild, fake.upload(audio("kv_cache.ogg"), "answer.ogg"))
    assert shown["flags"] & EPHEMERAL
    embed = shown["embeds"][0]
    assert embed["title"] == "Your answer, as I heard it"
    assert "KV cache" in embed["description"] and "GPU memory" in embed["description"], "biased toward the bite"
    assert "Graded against **The KV cache**" in embed["description"]
    assert labels(shown)[:2] == ["Grade it", "Fix the transcript"]
    assert await attempts(bot, alice) == [], "nothing is graded before the member confirms"

    graded = await press(fake, alice, shown, "Grade it")
    assert_graded_with_delivery(graded)
    (attempt,) = await attempts(bot, alice)
    assert attempt.guild_id == int(guild["id"]) and attempt.answer_text is None, "keep-answers is off by default"
    delivery = await bot.services.store.read(lambda db: db.get(DeliveryRow, attempt.id))
    assert 25 <= delivery.speaking_s <= 36 and delivery.fillers == 0

    again = await press(fake, alice, shown, "Grade it")  # a second click: the same attempt, not another
    assert again["embeds"][0]["title"] == graded["embeds"][0]["title"]
    assert len(await attempts(bot, alice)) == 1

    stats = await fake.slash(alice, "stats", guild=guild)
    await stats.acknowledged()
    trend = fields(await fake.reply(stats))["Delivery (voice answers)"]
    assert trend.startswith("1 voice answer;") and "wpm" in trend and "fillers/min" in trend


async def test_dm_voice_message_answers_the_latest_prompt_for_its_server(voice, fake):
    bot = await voice.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    prompt = await open_prompt(fake, alice, guild)
    assert "voice message" in prompt["embeds"][0]["description"], "the prompt says how to answer out loud"

    sent = await fake.send_voice_message(alice, fake.dm_channel(alice), audio("rambling_fillers.ogg"), duration=21.0)
    shown = await fake.reply_to(sent)
    assert shown["channel_id"] == fake.dm_channel(alice)["id"]
    assert "Graded against **The KV cache**" in shown["embeds"][0]["description"]
    assert fake.requests_to("POST", "/typing"), "the member sees the bot is working on it"

    graded = await press(fake, alice, shown, "Grade it")
    assert_graded_with_delivery(graded)
    assert "fillers a minute" in graded["embeds"][0]["fields"][0]["value"], "the rambling answer is coached"
    (attempt,) = await attempts(bot, alice)
    assert attempt.guild_id == int(guild["id"]), "attributed to the prompt's server, not the DM"


async def test_dm_voice_message_without_a_prompt_asks_which_bite(voice, fake):
    bot = await voice.start()
    alice = fake.add_user("alice")
    sent = await fake.send_voice_message(alice, fake.dm_channel(alice), audio("kv_cache.ogg"), duration=KV_SECONDS)
    shown = await fake.reply_to(sent)
    assert "no `/explain` prompt" in shown["content"]
    assert "Which bite is this answer for?" in shown["embeds"][0]["description"]
    assert "Grade as: The KV cache" in labels(shown) and "Grade it" in labels(shown)

    graded = await press(fake, alice, shown, "Grade as: The KV cache")
    assert_graded_with_delivery(graded)
    (attempt,) = await attempts(bot, alice)
    assert attempt.guild_id == 0 and attempt.bite_id == "kv-cache"

    found = await press(fake, alice, shown, "Grade it")  # no bite given: found from the answer
    assert "(found from your answer)" in found["embeds"][0]["description"]
    others = [b for b in buttons(found) if b["label"].startswith("Grade as: ")]
    assert others and all(b["custom_id"].startswith("vg:") for b in others), "another bite grades the transcript"
    other = others[0]["label"].removeprefix("Grade as: ")
    assert_graded_with_delivery(await press(fake, alice, found, others[0]["label"]), bite_title=other)
    await press(fake, alice, found, others[0]["label"])  # again: the same transcript and bite, one attempt
    assert [a.bite_id for a in await attempts(bot, alice)].count(other_id(bot, other)) == 1



async def test_fix_the_transcript_opens_it_prefilled_and_grades_the_fix(voice, fake):
    bot = await voice.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    keep = await fake.slash(alice, "settings", guild=guild, options={"keep_answers": True})
    await keep.acknowledged()
    shown = await explain_with_audio(fake, alice, guild, fake.upload(audio("kv_cache.ogg"), "answer.ogg"))

    opened = await fake.click(alice, shown, button(shown, "Fix the transcript")["custom_id"])
    assert await opened.acknowledged() == RESPONSE_MODAL
    (box,) = [c for row in opened.modal["components"] for c in row["components"]]
    heard = box["value"]
    assert heard and heard in shown["embeds"][0]["description"] and box["max_length"] == 4000

    fixed = heard + " Queries are never cached, only keys and values."
    submitted = await fake.submit(alice, opened.modal["custom_id"], {box["custom_id"]: fixed}, guild=guild)
    assert await submitted.acknowledged() == RESPONSE_DEFER
    assert_graded_with_delivery(await fake.reply(submitted))
    (attempt,) = await attempts(bot, alice)
    assert attempt.answer_text == fixed, "the member's fix is what was graded and kept"


async def test_a_restart_between_transcript_and_grade_it_loses_nothing(voice, fake):
    first = await voice.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    shown = await explain_with_audio(fake, alice, guild, fake.upload(audio("kv_cache.ogg"), "answer.ogg"))
    await voice.stop(first)

    second = await voice.start()
    assert_graded_with_delivery(await press(fake, alice, shown, "Grade it"))
    assert len(await attempts(second, alice)) == 1


async def test_someone_else_cannot_grade_a_transcript_and_forget_deletes_it(voice, fake):
    bot = await voice.start()
    guild, alice, bob = fake.add_guild(), fake.add_user("alice"), fake.add_user("bob")
    await open_prompt(fake, alice, guild)
    shown = await explain_with_audio(fake, alice, guild, fake.upload(audio("kv_cache.ogg"), "answer.ogg"))

    refused = await press(fake, bob, shown, "Grade it")
    assert "isn't one I'm holding for you" in refused["content"] and not refused["embeds"]

    forget = await fake.slash(alice, "forget", guild=guild)
    await forget.acknowledged()
    confirm = await fake.reply(forget)
    await press(fake, alice, confirm, "Delete my data")
    store = bot.services.store
    assert await store.get_state(HELD_KIND, alice["id"]) is None
    assert await store.get_state(PROMPT_KIND, alice["id"]) is None
    gone = await press(fake, alice, shown, "Grade it")
    assert "isn't one I'm holding for you" in gone["content"] and await attempts(bot, alice) == []


async def test_channel_voice_messages_only_with_the_setting_and_only_after_explain_there(voice, fake):
    voice.settings.voice_in_channels = True
    await voice.start()
    assert fake.intents & GUILD_MESSAGES and fake.intents & MESSAGE_CONTENT
    guild, alice = fake.add_guild(), fake.add_user("alice")
    general, daily = fake.channel(guild, "general"), fake.channel(guild, "daily")
    await open_prompt(fake, alice, guild, general)

    elsewhere = await fake.send_voice_message(alice, daily, audio("kv_cache.ogg"), duration=KV_SECONDS)
    here = await fake.send_voice_message(alice, general, audio("kv_cache.ogg"), duration=KV_SECONDS)
    shown = await fake.reply_to(here)
    assert shown["channel_id"] == general["id"] and "Graded against **The KV cache**" in shown["embeds"][0]["description"]
    assert not fake.replies_to(elsewhere), "a voice message in another channel is not an answer"
    graded = await press(fake, alice, shown, "Grade it")
    assert_graded_with_delivery(graded)
    assert graded["flags"] & EPHEMERAL, "the grade is the member's alone"


async def test_without_the_setting_the_bot_asks_only_for_dms(voice, fake):
    await voice.start()
    assert fake.intents & DIRECT_MESSAGES
    assert not fake.intents & (GUILD_MESSAGES | MESSAGE_CONTENT), "no privileged intent unless asked for"


async def test_one_recording_per_member_at_a_time(voice, fake):
    await voice.start()
    alice = fake.add_user("alice")
    dm = fake.dm_channel(alice)
    first = await fake.send_voice_message(alice, dm, audio("kv_cache.ogg"), duration=KV_SECONDS)
    second = await fake.send_voice_message(alice, dm, audio("kv_cache.ogg"), duration=KV_SECONDS)
    replies = [await fake.reply_to(first), await fake.reply_to(second)]
    assert sorted(bool(r["embeds"]) for r in replies) == [False, True]
    assert "still transcribing your last recording" in next(r["content"] for r in replies if not r["embeds"])
    third = await fake.send_voice_message(alice, dm, audio("kv_cache.ogg"), duration=KV_SECONDS)
    assert (await fake.reply_to(third))["embeds"], "once it is done the next one is taken"


async def test_a_dm_voice_message_answers_the_open_interview_turn(voice, fake):
    bot = await voice.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    await open_prompt(fake, alice, guild)  # an /explain prompt first: the interview closes it
    started = await fake.slash(alice, "interview", guild=guild, options={"topic": "kv cache", "questions": 1})
    assert await started.acknowledged() in ANSWERED
    opened = await fake.reply(started)
    interview_id = int(button(opened, "Answer")["custom_id"].split(":")[1])
    assert await bot.services.store.get_state(PROMPT_KIND, alice["id"]) is None

    sent = await fake.send_voice_message(alice, fake.dm_channel(alice), audio("kv_cache.ogg"), duration=KV_SECONDS)
    shown = await fake.reply_to(sent)
    assert shown["embeds"][0]["title"] == "Your answer, as I heard it", "the transcript comes first"
    assert "Graded against **The KV cache**" in shown["embeds"][0]["description"]

    turn = await press(fake, alice, shown, "Grade it")
    assert turn["embeds"][0]["title"].startswith("Interview"), "the transcript answered the interview"
    await press(fake, alice, shown, "Grade it")  # the same transcript twice: still one turn
    state = await bot.services.coach.interviews.get(interview_id, int(alice["id"]))
    assert len(state.turns) == 1 and state.turns[0].point is None and state.turns[0].score is not None
