"""Pictures end to end, through real discord.py against the fake Discord, drawn by the real
worker pool: /stats (the picture beside the text, described for screen readers),
/stats view:map, the server's week with the daily post on its first day of the week, what
happens without Attach Files, and a quiz click while pictures are being drawn."""

from __future__ import annotations

import asyncio
import io
from datetime import datetime, timedelta, timezone

import pytest
from PIL import Image

from tests.e2e.conftest import button, buttons
from tests.e2e.test_commands import run
from tests.e2e.test_daily import Clock, set_daily

NAME = "さくら🌸 田中"


@pytest.fixture
def settings(settings):
    """The product's default: one warm worker process draws the pictures."""
    return settings.model_copy(update={"picture_workers": 1})


def picture(fake, message, filename):
    (attachment,) = message["attachments"]
    assert attachment["filename"] == filename and attachment["content_type"] == "image/png"
    image = Image.open(io.BytesIO(fake.attachment_data(attachment)))
    image.verify()
    assert image.size == (attachment["width"], attachment["height"])
    return attachment


async def answer_first(fake, bot, user, guild, right: bool):
    message = await run(fake, user, guild, "quiz", options={"count": 5})
    session = int(button(message, "A")["custom_id"].split(":")[1])
    state = await bot.services.coach.quiz.get_session(session)
    question = bot.services.catalog.questions[state.question.question_id]
    index = state.question.options.index(question.options[question.answer])
    letter = "ABCD"[index if right else (index + 1) % 4]
    return message, await fake.reply(await fake.click(user, message, button(message, letter)["custom_id"]))


async def test_stats_sends_the_picture_beside_the_text_with_a_description(harness, fake):
    bot = await harness.start()
    assert await bot.services.pictures.ready(), "the worker started warm with the bot"
    guild, user = fake.add_guild(), fake.add_user(NAME)
    await answer_first(fake, bot, user, guild, right=True)
    reply = await run(fake, user, guild, "stats")
    assert reply["embeds"][0]["title"] == "Your progress", "the text summary stays"
    fields = {f["name"]: f["value"] for f in reply["embeds"][0]["fields"]}
    assert fields["Accuracy"].startswith("100%")
    attachment = picture(fake, reply, "progress.png")
    assert (attachment["width"], attachment["height"]) == (1200, 1000)
    description = attachment["description"]
    assert description.startswith(f"Progress chart for {NAME}") and "Quiz accuracy 100% over 1 answer (one week so far)" in description
    assert reply["flags"] & 64, "private, like the text was"


async def test_stats_view_map_shows_every_bite_and_what_to_study_next(harness, fake):
    bot = await harness.start()
    guild, user = fake.add_guild(), fake.add_user("ada")
    _, answered = await answer_first(fake, bot, user, guild, right=False)
    shown = await fake.reply(await fake.click(user, answered, button(answered, "Next")["custom_id"]))
    stopped = await fake.reply(await fake.click(user, shown, button(shown, "Stop")["custom_id"]))
    assert stopped["embeds"][0]["title"] == "Quiz stopped", "no quiz running: the map's quiz button starts one"
    reply = await run(fake, user, guild, "stats", options={"view": "map"})
    embed = reply["embeds"][0]
    assert embed["title"] == "Bite map · Inference (test track)"
    assert "1 of 3 bites practised" in embed["description"] and "**Next:**" in embed["description"]
    attachment = picture(fake, reply, "bite-map.png")
    assert attachment["width"] == 1200 and "3 bites" in attachment["description"]
    labels = [b["label"] for b in buttons(reply)]
    assert labels[0].startswith("Read: ") and "Quiz me on it" in labels
    study_next = labels[0].removeprefix("Read: ")
    quiz = await fake.reply(await fake.click(user, reply, button(reply, "Quiz me on it")["custom_id"]))
    title = quiz["embeds"][0]["title"]
    assert title.startswith("Quiz · 1/") and title.endswith(f" · {study_next}"), "a new quiz on that bite"


async def test_the_weekly_picture_goes_with_the_post_on_the_servers_first_day(harness, fake):
    clock = Clock(datetime(2026, 11, 28, 10, 0, tzinfo=timezone.utc))  # a Saturday
    bot = await harness.start(clock=clock)
    guild, admin = fake.add_guild("Prep 🚀"), fake.add_user("admin")
    channel, confirmation = await set_daily(fake, guild, admin, time="09:00")
    assert "Sunday's post also shows the server's week" in confirmation, "en-US servers start weeks on Sunday"
    assert await bot.poster.run_once() == 1
    (saturday,) = fake.channel_messages(channel["id"])
    assert saturday["attachments"] == [], "no picture on other days"

    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    fake.set_nick(guild, alice, "アリス ✨")
    state = await bot.services.coach.daily.pick_daily(int(guild["id"]), clock.moment.date())
    question = bot.services.catalog.questions[state.question.question_id]
    right = "ABCD"[state.question.options.index(question.options[question.answer])]
    wrong = "ABCD"[("ABCD".index(right) + 1) % 4]
    for user, letter in ((alice, right), (bob, wrong), (carol, right)):
        await fake.reply(await fake.click(user, saturday, button(saturday, letter)["custom_id"]))
    await run(fake, carol, guild, "settings", options={"leaderboard": False})

    clock.moment += timedelta(days=1)  # Sunday: the first day of the server's week
    assert await bot.poster.run_once() == 1
    sunday = fake.channel_messages(channel["id"])[-1]
    attachment = picture(fake, sunday, "server-week.png")
    description = attachment["description"]
    assert description.startswith("Prep 🚀, the week of 22–28 Nov 2026: 3 answers.")
    assert f"Saturday: 3 answered the daily question" in description and f"right answer was {right}" in description
    assert "1. アリス ✨ 10 XP" in description and "carol" not in description, "opted-out members stay out"
    fields = {f["name"]: f["value"] for f in sunday["embeds"][0]["fields"]}
    assert "3 answers; 1 daily question" in fields["Last week"]
    assert sunday["nonce"].startswith("daily-") and [b["label"] for b in buttons(sunday)][:4] == ["A", "B", "C", "D"]
    member_lookups = fake.requests_to("GET", f"/guilds/{guild['id']}/members/")
    assert [r.path.rsplit("/", 1)[1] for r in member_lookups] == [alice["id"]]

    clock.moment += timedelta(days=1)  # Monday: an ordinary post again
    assert await bot.poster.run_once() == 1
    assert fake.channel_messages(channel["id"])[-1]["attachments"] == []


async def test_without_attach_files_the_post_goes_without_its_picture_and_the_owner_hears_once(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc))  # a Monday
    bot = await harness.start(clock=clock)
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel = fake.channel(guild, "daily")
    confirmation = await run(fake, admin, guild, "daily", subcommand="set", admin=True,
                             options={"channel": channel, "time": "09:00", "timezone": "UTC", "week_starts": "monday"})
    assert "Monday's post also shows the server's week" in confirmation["content"]
    assert (await bot.services.coach.daily.get_schedule(int(guild["id"]))).week_start == 0
    fake.deny_attachments(channel["id"])
    assert await bot.poster.run_once() == 1
    (post,) = fake.channel_messages(channel["id"])
    assert post["attachments"] == [] and post["embeds"][0]["title"].startswith("Daily bite · ")
    refused = [r for r in fake.requests_to("POST", f"/channels/{channel['id']}/messages") if r.status == 403]
    assert len(refused) == 1 and refused[0].files, "the picture was tried once"
    dms = [r for r in fake.requests_to("POST", "/messages") if r.status == 200 and "Attach Files" in (r.body.get("content") or "")]
    assert len(dms) == 1


async def test_stats_where_the_bot_may_not_attach_files_says_so(harness, fake):
    await harness.start()
    guild, user = fake.add_guild(), fake.add_user("ada")
    without_attach = str((1 << 10) | (1 << 11) | (1 << 14) | (1 << 31))
    reply = await fake.reply(await fake.slash(user, "stats", guild=guild, app_permissions=without_attach))
    assert reply["attachments"] == [] and "Attach Files" in reply["embeds"][0]["footer"]["text"]


async def test_a_quiz_click_is_not_queued_behind_pictures_being_drawn(harness, fake):
    """Three bite maps are asked for, then a quiz answer is clicked: the click is answered
    within Discord's 3 seconds and before the pictures are all in (it did not wait for them),
    and every picture still arrives."""
    bot = await harness.start()
    await bot.services.pictures.ready()
    guild, user, others = fake.add_guild(), fake.add_user("quizzer"), [fake.add_user(f"u{i}") for i in range(3)]
    message = await run(fake, user, guild, "quiz", options={"count": 5})
    drawing = [await fake.slash(other, "stats", guild=guild, options={"view": "map"}) for other in others]
    await asyncio.sleep(0.05)  # the renders are under way in the worker
    click = await fake.click(user, message, button(message, "A")["custom_id"])
    assert await click.acknowledged() in (6, 7)
    answered_at = click.callbacks[0][0]
    assert click.first_response_latency < 3.0
    for record in drawing:
        assert (await fake.reply(record))["attachments"], "every picture still arrived"
    pictures_in = [r.at for record in drawing
                   for r in fake.requests_to("PATCH", f"/webhooks/{fake.app_id}/{record.token}/messages/@original")]
    pictures_in += [at for record in drawing for at, kind, _ in record.callbacks if kind == 4]
    assert answered_at < max(pictures_in), "the click did not wait for the pictures"


async def test_a_reply_answered_directly_carries_the_picture_too(harness, fake, monkeypatch):
    """Most pictures are deferred then edited in; one drawn within the budget goes in the first response."""
    import bot.discord.adapter as adapter

    monkeypatch.setattr(adapter, "ACK_BUDGET_S", 2.5)  # within Discord's 3 s; the 3-bite map draws in ~50 ms
    bot = await harness.start()
    await bot.services.pictures.ready()
    guild, user = fake.add_guild(), fake.add_user("ada")
    record = await fake.slash(user, "stats", guild=guild, options={"view": "map"})
    assert await record.acknowledged(timeout=30) == 4, "a direct message, not a defer"
    reply = await fake.reply(record)
    assert picture(fake, reply, "bite-map.png")["description"].startswith("Bite map of the Inference (test track)")


async def test_a_week_that_cannot_be_drawn_never_costs_the_post(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc))  # a Monday
    bot = await harness.start(clock=clock)
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel = fake.channel(guild, "daily")
    await run(fake, admin, guild, "daily", subcommand="set", admin=True,
              options={"channel": channel, "time": "09:00", "timezone": "UTC", "week_starts": "monday"})

    async def broken(guild_id, start):
        raise RuntimeError("the database hiccupped")

    bot.poster.week = broken
    assert await bot.poster.run_once() == 1
    (post,) = fake.channel_messages(channel["id"])
    assert post["attachments"] == [] and "Last week" not in {f["name"] for f in post["embeds"][0]["fields"]}
