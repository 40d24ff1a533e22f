"""/interview through the real discord.py client and the fake Discord: a weak answer, the
follow-up on a missed core point, a restart between turns, a rescue, the scorecard; and the
limits (someone else's button, a second /interview, a pressed-twice turn, the rate limit); an
interview that ran out of time told with the next command, or by DM with reminders on."""

from datetime import datetime, timedelta, timezone

from tests.e2e.conftest import ANSWERED, button
from tests.e2e.test_daily import Clock
from tests.fakediscord.records import RESPONSE_DEFER, RESPONSE_MODAL

WEAK = "um it caches some stuff from earlier tokens so the model is faster, I think"


def labels(message):
    return [c["label"] for row in message["components"] for c in row["components"]]


async def answer_turn(fake, user, guild, shown, text):
    opened = await fake.click(user, shown, button(shown, "Answer")["custom_id"])
    assert await opened.acknowledged() == RESPONSE_MODAL
    record = await fake.submit(user, opened.modal["custom_id"], {"answer": text}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER, "grading is deferred at once"
    return await fake.reply(record)


async def open_interview(fake, user, guild, **options):
    started = await fake.slash(user, "interview", guild=guild, options=options)
    assert await started.acknowledged() in ANSWERED
    return await fake.reply(started)


async def test_interview_with_a_restart_between_turns(harness, fake, catalog):
    bot = await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    shown = await open_interview(fake, alice, guild, topic="kv cache", questions=1)
    bite = catalog.bites["kv-cache"]
    assert bite.prompt in shown["embeds"][0]["description"]
    assert labels(shown) == ["Answer", "I don't know", "End interview"]

    follow_up = await answer_turn(fake, alice, guild, shown, WEAK)
    embed = follow_up["embeds"][0]
    assert embed["title"].startswith("Interview — follow-up") and "Noted: that **missed**" in embed["description"]
    point = next(p for p in bite.key_points if p.follow_up in embed["description"])
    assert point.kind == "core", "the interviewer probes a missed core point first"
    assert "fallback embedding grader" in embed["footer"]["text"], "the CPU grade is labelled"

    await harness.stop(bot)  # a restart between turns: the interview lives in the database
    await harness.start()
    rescued = await answer_turn(fake, alice, guild, follow_up, point.point)
    assert "Noted: that **landed**" in rescued["embeds"][0]["description"]

    ended = await fake.click(alice, rescued, button(rescued, "End interview")["custom_id"])
    await ended.acknowledged()
    scorecard = await fake.reply(ended)
    (picture,) = scorecard["attachments"]
    assert picture["filename"] == "interview-scorecard.png" and "Interview scorecard for alice" in picture["description"]
    card = scorecard["embeds"][0]
    assert card["title"].startswith("Interview scorecard — ")
    fields = {f["name"]: f["value"] for f in card["fields"]}
    first = next(v for k, v in fields.items() if k.startswith("1. The KV cache"))
    assert "Rescued on follow-up" in first and point.point in first
    assert "What would change the outcome most" in fields


async def test_other_members_old_buttons_and_a_second_interview(harness, fake):
    await harness.start()
    guild, bob, eve = fake.add_guild(), fake.add_user("bob"), fake.add_user("eve")
    shown = await open_interview(fake, bob, guild, topic="kv cache")

    stolen = await fake.click(eve, shown, button(shown, "I don't know")["custom_id"])
    await stolen.acknowledged()
    assert "isn't available to you" in (await fake.reply(stolen))["content"]

    again = await open_interview(fake, bob, guild, topic="batching")
    assert "You have an interview open" in again["embeds"][0]["description"]

    passed = await fake.click(bob, shown, button(shown, "I don't know")["custom_id"])
    await passed.acknowledged()
    moved = await fake.reply(passed)
    assert "Noted — let's move on." in moved["embeds"][0]["description"]
    twice = await fake.click(bob, shown, button(shown, "I don't know")["custom_id"])  # the old message's button
    await twice.acknowledged()
    assert "answered already" in (await fake.reply(twice))["embeds"][0]["description"]


async def test_interviews_have_their_own_rate_limit(harness, fake):
    await harness.start(interview_rate_limit=1)
    guild, carol = fake.add_guild(), fake.add_user("carol")
    shown = await open_interview(fake, carol, guild, questions=1)
    ended = await fake.click(carol, shown, button(shown, "End interview")["custom_id"])
    await ended.acknowledged()
    assert "nothing answered" in (await fake.reply(ended))["embeds"][0]["title"]
    refused = await open_interview(fake, carol, guild)
    assert "interviews every 60 minutes" in refused["content"]


async def test_stats_shows_interviews_and_their_signals(harness, fake):
    await harness.start()
    guild, dana = fake.add_guild(), fake.add_user("dana")
    shown = await open_interview(fake, dana, guild, topic="kv cache", questions=1)
    answered = await answer_turn(fake, dana, guild, shown, WEAK)
    ended = await fake.click(dana, answered, button(answered, "End interview")["custom_id"])
    await ended.acknowledged()
    signal = (await fake.reply(ended))["embeds"][0]["title"].removeprefix("Interview scorecard — ")
    stats = await fake.slash(dana, "stats", guild=guild)
    await stats.acknowledged()
    fields = {f["name"]: f["value"] for f in (await fake.reply(stats))["embeds"][0]["fields"]}
    assert fields["Interviews"].startswith("1 taken: ") and fields["Interviews"].endswith(signal)


async def test_an_interview_that_ran_out_of_time_is_told_with_the_next_command_once(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    await harness.start(clock=clock)
    guild, erin = fake.add_guild(), fake.add_user("erin")
    shown = await open_interview(fake, erin, guild, topic="kv cache", questions=1)
    await answer_turn(fake, erin, guild, shown, WEAK)
    clock.moment += timedelta(minutes=16)  # the follow-up was left unanswered: the interview lapses
    first = await fake.slash(erin, "bite", guild=guild, options={"topic": "kv cache"})
    await first.acknowledged()
    told = await fake.reply(first)
    assert told["content"].startswith("⏱️ Your last interview ran out of time. An interviewer's call")
    assert told["embeds"], "the command's own reply is still there"
    again = await fake.slash(erin, "bite", guild=guild, options={"topic": "kv cache"})
    await again.acknowledged()
    assert "ran out of time" not in (await fake.reply(again))["content"], "said once"


async def test_a_member_with_reminders_gets_the_lapsed_interview_by_dm(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc))
    bot = await harness.start(clock=clock)
    guild, finn = fake.add_guild(), fake.add_user("finn")
    settings = await fake.slash(finn, "settings", guild=guild, options={"reminders": True})
    await settings.acknowledged()
    shown = await open_interview(fake, finn, guild, topic="kv cache", questions=1)
    await answer_turn(fake, finn, guild, shown, WEAK)
    assert await bot.reminders.run_once() == 0, "still open: nothing to say"
    clock.moment += timedelta(minutes=16)
    assert await bot.reminders.run_once() == 1
    dms = [r.body["content"] for r in fake.requests_to("POST", "/messages") if r.status == 200
           and "ran out of time" in (r.body.get("content") or "")]
    assert len(dms) == 1 and "An interviewer's call" in dms[0]
    assert await bot.reminders.run_once() == 0, "sent once"
    later = await fake.slash(finn, "stats", guild=guild)
    await later.acknowledged()
    assert "ran out of time" not in (await fake.reply(later))["content"], "already told by DM"


async def test_a_finishing_turn_gives_its_grading_slot_back_before_the_scorecard_picture(harness, fake):
    """The grading queue bounds grading CPU: a turn that ends the interview is graded inside a
    slot, and its scorecard picture is drawn after the slot is free, so an /explain waiting for
    the slot does not wait for the picture too (bench/bot_load.py's trace found it did)."""
    bot = await harness.start()
    guild, gina = fake.add_guild(), fake.add_user("gina")
    queue, progress = bot.services.grading_queue, bot.handlers.progress
    slots_in_use = []
    draw = progress.picture

    async def picture(spec):
        slots_in_use.append(queue.busy)
        return await draw(spec)

    progress.picture = picture
    shown = await open_interview(fake, gina, guild, topic="kv cache", questions=1)
    for _ in range(4):  # the first answer, then follow-ups until the interview finishes
        shown = await answer_turn(fake, gina, guild, shown, WEAK)
        if shown["embeds"][0]["title"].startswith("Interview scorecard"):
            break
    assert shown["embeds"][0]["title"].startswith("Interview scorecard"), "three follow-ups at most"
    assert shown["attachments"], "the scorecard came with its picture"
    assert slots_in_use == [0], "drawn once, with no grading slot held"
