"""Every recording the coach cannot use gets a clear reply, nothing is graded or lost, and the
member can try again at once. What the attachment says (type, size, a voice message's duration)
is checked before its bytes are downloaded."""

from sqlalchemy import func, select

from coach.store.models import Attempt
from tests.e2e.test_voice import KV_SECONDS, explain_with_audio, open_prompt
from tests.voice.conftest import audio

TOO_BIG = 10_000_001  # SPEECH_MAX_BYTES is 10 MB


def downloads(fake, attachment: dict) -> int:
    return len(fake.requests_to("GET", f"/attachments/{attachment['id']}/"))


async def no_attempts(bot) -> bool:
    return await bot.services.store.read(lambda db: db.scalar(select(func.count()).select_from(Attempt))) == 0


async def test_bad_files_through_the_attachment_option(harness, fake, warm_speech):
    harness.speech = warm_speech
    bot = await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")

    async def refused(data: bytes, filename: str, *, downloaded: bool, **kwargs) -> str:
        upload = fake.upload(data, filename, **kwargs)
        reply = await explain_with_audio(fake, alice, guild, upload)
        assert not reply["embeds"] and not reply["components"], reply
        assert downloads(fake, upload) == int(downloaded)
        assert "/explain" in reply["content"], "says how to try again"
        return reply["content"]

    assert "`text/plain`, not audio" in await refused(b"my answer, typed", "answer.txt", downloaded=False)
    assert "up to 10 MB" in await refused(bytes(TOO_BIG), "huge.ogg", downloaded=False)
    assert "couldn't read that file as audio" in await refused(audio("not_audio.ogg"), "answer.ogg", downloaded=True)
    assert "couldn't read that file as audio" in await refused(audio("corrupt.ogg"), "answer.ogg", downloaded=True)
    assert "up to 3 minutes" in await refused(audio("ten_minutes.ogg"), "long.ogg", downloaded=True)
    assert "couldn't hear any speech" in await refused(audio("silence.ogg"), "quiet.ogg", downloaded=True)
    assert await no_attempts(bot)

    shown = await explain_with_audio(fake, alice, guild, fake.upload(audio("kv_cache.ogg"), "answer.ogg"))
    assert shown["embeds"][0]["title"] == "Your answer, as I heard it", "the next good recording goes through"


async def test_bad_voice_messages_in_a_dm_and_the_prompt_stays_open(harness, fake, warm_speech):
    harness.speech = warm_speech
    bot = await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    dm = fake.dm_channel(alice)
    await open_prompt(fake, alice, guild)

    async def refused(data: bytes, duration: float, *, downloaded: bool) -> str:
        sent = await fake.send_voice_message(alice, dm, data, duration=duration)
        reply = await fake.reply_to(sent)
        assert not reply["embeds"] and not reply["components"], reply
        assert downloads(fake, sent["attachments"][0]) == int(downloaded)
        assert "Send another voice message" in reply["content"]
        return reply["content"]

    assert "10.0 minutes; I can take up to 3 minutes" in await refused(audio("ten_minutes.ogg"), 600.0,
                                                                       downloaded=False)
    assert "couldn't hear any speech" in await refused(audio("silence.ogg"), 4.0, downloaded=True)
    assert "didn't sound like English" in await refused(audio("german.ogg"), 11.0, downloaded=True)
    assert await no_attempts(bot)

    sent = await fake.send_voice_message(alice, dm, audio("kv_cache.ogg"), duration=KV_SECONDS)
    shown = await fake.reply_to(sent)
    assert "Graded against **The KV cache**" in shown["embeds"][0]["description"], "still the same prompt"


async def test_a_download_that_fails_is_said_plainly(harness, fake, warm_speech):
    harness.speech = warm_speech
    await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    upload = fake.upload(audio("kv_cache.ogg"), "answer.ogg")
    fake.inject(404, method="GET", path=f"^/attachments/{upload['id']}/")
    reply = await explain_with_audio(fake, alice, guild, upload)
    assert "couldn't download that recording" in reply["content"] and "/explain" in reply["content"]
