"""Two tracks end to end (#29): `/quiz` with no track (the member's track, else the server's,
else a mix), `/settings track:`, one daily schedule per channel with its own track, `/daily off`
for one channel, and `/help` naming the tracks. The catalog is the e2e inference track plus two
bites of the LLM track."""

import shutil

import pytest

from content import load_catalog
from tests.e2e.conftest import TRACKS, button, buttons

LLM_TRACK = TRACKS.parent / "tracks_llm" / "llm"


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    root = tmp_path_factory.mktemp("two_tracks")
    shutil.copytree(TRACKS / "inference", root / "inference")
    shutil.copytree(LLM_TRACK, root / "llm")
    return load_catalog(root)


@pytest.fixture(scope="module")
def topics(catalog, tmp_path_factory):
    from coach.config import load_settings
    from coach.topics import TopicFinder

    return TopicFinder.from_settings(load_settings(data_dir=tmp_path_factory.mktemp("index")), catalog)


async def run(fake, user, guild, name, **kwargs):
    record = await fake.slash(user, name, guild=guild, **kwargs)
    return await fake.reply(record)


async def session_tracks(bot, message) -> tuple[str, set[str]]:
    """The quiz session a reply started: the track it recorded, and the tracks its questions come from."""
    from coach.store.models import QuizSession

    session_id = int(button(message, "A")["custom_id"].split(":")[1])
    row = await bot.services.store.run(lambda db: db.get(QuizSession, session_id))
    catalog = bot.services.catalog
    return row.track, {catalog.bites[catalog.questions[q].bite_id].track for q in row.question_ids}


async def todays_track(bot, message) -> str:
    """The track of the bite a `/bite` reply shows."""
    title = message["embeds"][0]["title"]
    (track,) = {b.track for b in bot.services.catalog.bites.values() if b.title == title}
    return track


async def stop_quiz(fake, user, message):
    await fake.reply(await fake.click(user, message, button(message, "Stop")["custom_id"]))


async def test_quiz_with_no_track_takes_the_members_then_the_servers_then_a_mix(harness, fake):
    bot = await harness.start()
    guild, admin, member = fake.add_guild(channel_names=("general", "daily", "llm-daily")), \
        fake.add_user("admin"), fake.add_user("member")

    mixed = await run(fake, member, guild, "quiz", options={"count": 5})
    recorded, drawn = await session_tracks(bot, mixed)
    assert recorded == "mix" and drawn <= {"inference", "llm"}
    await stop_quiz(fake, member, mixed)

    # The server posts the LLM track: /quiz with no track follows it.
    await run(fake, admin, guild, "daily", subcommand="set", admin=True,
              options={"channel": fake.channel(guild, "llm-daily"), "time": "09:00", "timezone": "UTC",
                       "track": "llm"})
    servers = await run(fake, member, guild, "quiz", options={"count": 5})
    assert await session_tracks(bot, servers) == ("llm", {"llm"})
    await stop_quiz(fake, member, servers)
    assert await todays_track(bot, await run(fake, member, guild, "bite")) == "llm", "today's bite: the server's track"

    # The member's own track comes first; `any` forgets it.
    shown = await run(fake, member, guild, "settings", options={"track": "inference"})
    assert "Your track:** Inference" in shown["embeds"][0]["description"]
    own = await run(fake, member, guild, "quiz", options={"count": 5})
    assert await session_tracks(bot, own) == ("inference", {"inference"})
    await stop_quiz(fake, member, own)
    assert await todays_track(bot, await run(fake, member, guild, "bite")) == "inference"
    cleared = await run(fake, member, guild, "settings", options={"track": "any"})
    assert "Your track:** none" in cleared["embeds"][0]["description"]
    refused = await run(fake, member, guild, "settings", options={"track": "cooking"})
    assert "no track called 'cooking'" in refused["content"] and "llm" in refused["content"]

    text = (await run(fake, member, guild, "help"))["content"]
    assert "`inference`" in text and "`llm`" in text


async def test_each_channel_posts_its_own_track_and_is_answered_and_stopped_on_its_own(harness, fake):
    bot = await harness.start()
    guild = fake.add_guild(channel_names=("general", "daily", "llm-daily"))
    admin, member = fake.add_user("admin"), fake.add_user("member")
    channels = {"inference": fake.channel(guild, "daily"), "llm": fake.channel(guild, "llm-daily")}
    for track, channel in channels.items():
        await run(fake, admin, guild, "daily", subcommand="set", admin=True,
                  options={"channel": channel, "time": "00:00", "timezone": "UTC", "track": track})

    assert await bot.poster.run_once() == 2
    catalog = bot.services.catalog
    for track, channel in channels.items():
        (post,) = fake.channel_messages(channel["id"])
        title = post["embeds"][0]["title"].removeprefix("Daily bite · ")
        assert {b.track for b in catalog.bites.values() if b.title == title} == {track}
        assert [b["label"] for b in buttons(post)][:4] == ["A", "B", "C", "D"]
        first = await fake.reply(await fake.click(member, post, button(post, "A")["custom_id"]))
        assert "counted once" not in first["content"], f"the {track} post counts on its own"
        again = await fake.reply(await fake.click(member, post, button(post, "B")["custom_id"]))
        assert "counted once" in again["content"]
    guild_id, today = int(guild["id"]), bot.services.coach.now().date()  # the schedules are in UTC
    daily = bot.services.coach.daily
    assert [(await daily.daily_results(guild_id, today, channel_id=int(c["id"]))).total
            for c in channels.values()] == [1, 1]

    off = await run(fake, admin, guild, "daily", subcommand="off", admin=True, options={"channel": channels["llm"]})
    assert f"<#{channels['llm']['id']}>" in off["content"]
    schedules = await bot.services.coach.daily.get_schedules(guild_id)
    assert {(s.track, s.enabled) for s in schedules} == {("inference", True), ("llm", False)}
    everything = await run(fake, admin, guild, "daily", subcommand="off", admin=True)
    assert "off" in everything["content"]
    assert not any(s.enabled for s in await bot.services.coach.daily.get_schedules(guild_id))


LORA_ANSWER = ("LoRA freezes the pretrained weights and learns the update as two thin low-rank matrices, so only a "
               "few parameters and their optimizer state are trained, and the product can be merged into the weights.")


async def test_a_member_studies_the_llm_track_and_an_admin_previews_each_channels_post(harness, fake):
    """Issue #29's session through Discord: `/quiz llm count:5`, `/explain lora`, `/stats
    view:map track:llm`, and `/daily preview channel:` for two channels with two tracks."""
    bot = await harness.start()
    guild = fake.add_guild(channel_names=("general", "daily", "llm-daily"))
    admin, member = fake.add_user("admin"), fake.add_user("member")

    quiz = await run(fake, member, guild, "quiz", options={"track": "llm", "count": 5})
    assert quiz["embeds"][0]["title"].startswith("Quiz · 1/5")
    assert await session_tracks(bot, quiz) == ("llm", {"llm"})
    await stop_quiz(fake, member, quiz)

    shown = await run(fake, member, guild, "explain", options={"topic": "lora"})
    opened = await fake.click(member, shown, button(shown, "Answer")["custom_id"])
    await opened.acknowledged()
    graded = await fake.reply(await fake.submit(member, opened.modal["custom_id"], {"answer": LORA_ANSWER}, guild=guild))
    assert graded["embeds"][0]["title"].startswith("Score ")
    assert "Graded against **LoRA: low-rank adaptation**" in graded["embeds"][0]["description"]

    bite_map = await run(fake, member, guild, "stats", options={"view": "map", "track": "llm"})
    assert bite_map["embeds"][0]["title"] == "Bite map · LLM Fundamentals & Training"
    assert [a["filename"] for a in bite_map["attachments"]] == ["bite-map.png"]

    channels = {"inference": fake.channel(guild, "daily"), "llm": fake.channel(guild, "llm-daily")}
    for track, channel in channels.items():
        await run(fake, admin, guild, "daily", subcommand="set", admin=True,
                  options={"channel": channel, "time": "09:00", "timezone": "UTC", "track": track})
    for track, channel in channels.items():
        preview = await run(fake, admin, guild, "daily", subcommand="preview", admin=True, options={"channel": channel})
        assert f"<#{channel['id']}>" in preview["content"] and f"track **{track}**" in preview["content"]
        title = preview["embeds"][0]["title"].removeprefix("Daily bite · ")
        assert {b.track for b in bot.services.catalog.bites.values() if b.title == title} == {track}
    nowhere = await run(fake, admin, guild, "daily", subcommand="preview", admin=True,
                        options={"channel": fake.channel(guild, "general")})
    assert "has no daily post" in nowhere["content"]
