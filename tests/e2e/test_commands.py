"""The other commands end to end: /bite, /help, /settings, /leaderboard, /review,
"Report this question", /daily preview and off, and the reminder DM."""

from datetime import datetime, timedelta, timezone

from tests.e2e.conftest import button, buttons
from tests.e2e.test_daily import Clock, set_daily


async def run(fake, user, guild, name, **kwargs):
    return await fake.reply(await fake.slash(user, name, guild=guild, **kwargs))


async def answer_one_wrong(fake, user, guild, bot):
    """Start a quiz and answer its first question wrongly; returns the quiz's session id and
    the missed question's id."""
    message = await run(fake, user, guild, "quiz", options={"count": 5})
    session = int(button(message, "A")["custom_id"].split(":")[1])
    state = await bot.services.coach.quiz.get_session(session)
    question = bot.services.catalog.questions[state.question.question_id]
    right = state.question.options.index(question.options[question.answer])
    wrong = "ABCD"[(right + 1) % 4]
    await fake.reply(await fake.click(user, message, button(message, wrong)["custom_id"]))
    return session, question.id


async def test_bite_help_and_settings(harness, fake):
    await harness.start()
    guild, user = fake.add_guild(), fake.add_user("user")
    bite = await run(fake, user, guild, "bite", options={"topic": "quantization"})
    assert bite["embeds"][0]["title"] == "Quantization basics"
    assert {"Quiz me", "Explain it out loud", "Report this bite"} <= {b["label"] for b in buttons(bite)}
    today = await run(fake, user, guild, "bite")
    assert today["embeds"][0]["footer"]["text"] == "Today's bite"
    assert "/quiz" in (await run(fake, user, guild, "help"))["content"]

    shown = await run(fake, user, guild, "settings")
    assert "Timezone:** UTC" in shown["embeds"][0]["description"]
    assert "at most 15 minutes" in shown["embeds"][0]["description"], "the privacy note on answer drafts"
    changed = await run(fake, user, guild, "settings", options={"timezone": "Europe/Paris", "reminders": True,
                                                                 "leaderboard": False})
    text = changed["embeds"][0]["description"]
    assert "Europe/Paris" in text and "Reminders by DM:** on" in text and "leaderboard:** on" in text
    refused = await run(fake, user, guild, "settings", options={"timezone": "Mars/Olympus"})
    assert "unknown timezone" in refused["content"]


async def test_leaderboard(harness, fake):
    bot = await harness.start()
    guild, alice, bob = fake.add_guild(), fake.add_user("alice"), fake.add_user("bob")
    assert "No XP earned" in (await run(fake, alice, guild, "leaderboard", options={"period": "week"}))["content"]
    await answer_one_wrong(fake, bob, guild, bot)
    message = await run(fake, alice, guild, "quiz", options={"count": 5})
    session = int(button(message, "A")["custom_id"].split(":")[1])
    state = await bot.services.coach.quiz.get_session(session)
    question = bot.services.catalog.questions[state.question.question_id]
    right = "ABCD"[state.question.options.index(question.options[question.answer])]
    await fake.reply(await fake.click(alice, message, button(message, right)["custom_id"]))
    board = await run(fake, alice, guild, "leaderboard", options={"period": "all"})
    assert f"<@{alice['id']}> — 10 XP" in board["embeds"][0]["description"]
    assert not board["flags"] & 64, "the leaderboard is shared with the channel"


async def test_review_offers_exactly_the_questions_that_are_due(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    bot = await harness.start(clock=clock)
    guild, user = fake.add_guild(), fake.add_user("user")
    fresh = await run(fake, user, guild, "review")
    assert "Nothing is due" in fresh["content"] and not fresh["embeds"], "nothing answered, nothing due"

    quiz, missed = await answer_one_wrong(fake, user, guild, bot)
    running = await run(fake, user, guild, "review")
    assert "already have a quiz running" in running["embeds"][0]["footer"]["text"], "nothing due: the quiz resumes"
    assert int(button(running, "A")["custom_id"].split(":")[1]) == quiz, "the same quiz, no new one"

    stopped = await fake.reply(await fake.click(user, running, button(running, "Stop")["custom_id"]))
    assert stopped["embeds"][0]["title"] == "Quiz stopped"
    clock.moment += timedelta(hours=11)  # 23:00 the same day: the miss is due tomorrow, not yet
    today = await run(fake, user, guild, "review")
    assert "Nothing is due" in today["content"] and not today["embeds"]

    clock.moment += timedelta(days=1)  # 23:00 the next day
    due = await run(fake, user, guild, "review")
    session = int(button(due, "A")["custom_id"].split(":")[1])
    state = await bot.services.coach.quiz.get_session(session)
    assert state.kind == "review" and state.question.question_id == missed and state.question.total == 1
    assert due["embeds"][0]["title"].startswith("Review · 1/1 · ")


async def test_a_deferred_leaderboard_is_still_shared_with_the_channel(harness, fake, monkeypatch):
    """A busy bot defers every command; the leaderboard's placeholder, and so its reply, stay public."""
    import bot.discord.adapter as adapter

    monkeypatch.setattr(adapter, "ACK_BUDGET_S", 0.0)
    await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    board = await run(fake, alice, guild, "leaderboard", options={"period": "week"})
    assert "No XP earned" in board["content"]
    assert not board["flags"] & 64, "the leaderboard is shared with the channel"


async def test_report_this_question_is_stored(harness, fake):
    bot = await harness.start()
    guild, user = fake.add_guild(), fake.add_user("user")
    message = await run(fake, user, guild, "quiz", options={"count": 5})
    opened = await fake.click(user, message, button(message, "Report this question")["custom_id"])
    modal = await fake.reply(opened)
    assert modal["title"] == "Report this question"
    thanks = await fake.reply(await fake.submit(user, modal["custom_id"], {"note": "Option B is also right."},
                                                guild=guild))
    assert "Thanks" in thanks["content"]
    (report,) = await bot.services.coach.account.list_reports()
    assert report.note == "Option B is also right." and report.user_id == int(user["id"])
    assert modal["custom_id"].endswith(report.item_id)


async def test_daily_preview_and_off_for_admins(harness, fake):
    bot = await harness.start()
    guild, admin = fake.add_guild(), fake.add_user("admin")
    await set_daily(fake, guild, admin)
    preview = await run(fake, admin, guild, "daily", subcommand="preview", admin=True)
    assert preview["flags"] & 64 and preview["embeds"][0]["title"].startswith("Daily bite · ")
    assert not fake.channel_messages(fake.channel(guild, "daily")["id"]), "a preview posts nothing"
    off = await run(fake, admin, guild, "daily", subcommand="off", admin=True)
    assert off["content"] == "Daily posts are off."
    assert await bot.poster.run_once() == 0


async def test_reminder_dm_when_reviews_are_due(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    bot = await harness.start(clock=clock)
    guild, user = fake.add_guild(), fake.add_user("user")
    await run(fake, user, guild, "settings", options={"reminders": True})
    await answer_one_wrong(fake, user, guild, bot)  # a missed question is due again tomorrow
    clock.moment += timedelta(days=1, hours=7)  # 19:00 UTC the next day
    assert await bot.reminders.run_once() == 1
    dm = [r for r in fake.requests_to("POST", "/messages") if r.status == 200 and "reminder" in r.body["content"]]
    assert len(dm) == 1 and "review" in dm[0].body["content"]
    assert await bot.reminders.run_once() == 0, "at most once a day"
