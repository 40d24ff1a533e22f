"""No user state in process memory: the /explain cool-down, "grade as another bite" drafts,
/forget confirmations, the daily post's claim and the once-a-day notices survive a restart
(a new bot on the same database) and are seen by a second bot on the same database."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

from bot.handlers import Actor, Handlers
from bot.services import build_services
from coach.daily.claims import POST_LEASE, DailyPostClaims
from tests.e2e.conftest import button, buttons
from tests.e2e.test_daily import set_daily
from tests.e2e.test_explain import GOOD_ANSWER, submit_answer
from tests.fakediscord.records import RESPONSE_DEFER


class Clock:
    def __init__(self):
        self.moment = datetime.now(timezone.utc)

    def __call__(self) -> datetime:
        return self.moment


async def test_forget_confirmed_after_a_restart(harness, fake):
    bot = await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    settings = await fake.slash(alice, "settings", guild=guild, options={"reminders": True})
    await fake.reply(settings)
    ask = await fake.slash(alice, "forget", guild=guild)
    await ask.acknowledged()
    confirm = await fake.reply(ask)
    confirm_id = button(confirm, "Delete my data")["custom_id"]
    await harness.stop(bot)

    restarted = await harness.start()
    done = await fake.click(alice, confirm, confirm_id)
    assert "deleted" in (await fake.reply(done))["content"]
    assert not (await restarted.services.coach.account.get_settings(int(alice["id"]))).reminders


async def test_the_cooldown_survives_a_restart(harness, fake):
    bot = await harness.start()
    guild, dave = fake.add_guild(), fake.add_user("dave")
    for _ in range(harness.settings.explain_rate_limit):
        _, graded = await submit_answer(fake, dave, guild, "m:kv-cache", GOOD_ANSWER)
        assert graded["embeds"]
    await harness.stop(bot)

    await harness.start()
    _, refused = await submit_answer(fake, dave, guild, "m:kv-cache", GOOD_ANSWER)
    assert "try again in" in refused["content"].lower() and not refused["embeds"]


async def test_grade_as_another_bite_after_a_restart(harness, fake):
    bot = await harness.start()
    guild, bob = fake.add_guild(), fake.add_user("bob")
    _, graded = await submit_answer(fake, bob, guild, "m:-", GOOD_ANSWER)
    other = next(b for b in buttons(graded) if b["label"].startswith("Grade as: "))
    await harness.stop(bot)

    await harness.start()
    click = await fake.click(bob, graded, other["custom_id"])
    assert await click.acknowledged() == RESPONSE_DEFER
    regraded = await fake.reply(click)
    title = other["label"].removeprefix("Grade as: ")
    assert regraded["embeds"][0]["title"].startswith("Score ")
    assert f"Graded against **{title}**" in regraded["embeds"][0]["description"]

    again = await fake.click(bob, graded, other["custom_id"])
    await again.acknowledged()
    asked = await fake.reply(again)
    bite_id = other["custom_id"].split(":")[1]
    assert not asked["embeds"] and button(asked, "Answer")["custom_id"] == f"x:{bite_id}", \
        "the draft was used once: a second click asks for the answer again"


async def test_a_second_bot_honours_confirmations_and_drafts_of_the_first(harness, catalog, topics):
    """Two processes behind a load balancer: the click lands on the other one."""
    first = await build_services(harness.settings, catalog=catalog, topics=topics)
    second = await build_services(harness.settings, catalog=catalog, topics=topics)
    try:
        here, there = Handlers(first), Handlers(second)
        carol = Actor(user_id=31, guild_id=5, request_id="i-1")
        confirm = await here.forget(carol)
        done = await there.press(carol, confirm.buttons[0].custom_id)
        assert done.outcome == "forgotten"

        graded = await here.grade(carol, GOOD_ANSWER, None)
        regrade = next(b for b in graded.buttons if b.label.startswith("Grade as: "))
        regraded = await there.press(Actor(user_id=31, guild_id=5, request_id="i-2"), regrade.custom_id)
        assert regraded.outcome.startswith("graded:")
        uses = harness.settings.explain_rate_limit - 2
        assert await first.explain_cooldown.uses_left(31) == uses == await second.explain_cooldown.uses_left(31)
    finally:
        await first.close()
        await second.close()


async def test_two_bots_post_the_daily_bite_once(harness, fake):
    first, second = await harness.start(), await harness.start()
    second.poster.holder = "another-process"
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    sent = await asyncio.gather(first.poster.run_once(), second.poster.run_once())
    assert sorted(sent) == [0, 1]
    assert await first.poster.run_once() == 0 and await second.poster.run_once() == 0
    assert len(fake.channel_messages(channel["id"])) == 1


async def test_a_bot_that_died_mid_post_is_taken_over_once_its_claim_lapses(harness, fake):
    clock = Clock()
    dead = await harness.start(clock=clock)
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    (due,) = await dead.services.coach.daily.due_posts()
    await dead.services.coach.daily.pick_daily(due.schedule.guild_id, due.local_date, due.schedule.track)
    claims = DailyPostClaims(dead.services.store, clock)
    assert (await claims.claim(due.schedule.guild_id, due.local_date, "dead-process",
                              channel_id=due.schedule.channel_id)).status == "granted"
    await harness.stop(dead)  # it claimed the post and died before sending

    standby = await harness.start(clock=clock)
    standby.poster.holder = "standby"
    assert await standby.poster.run_once() == 0, "the claim is still live"
    clock.moment += POST_LEASE
    assert await standby.poster.run_once() == 1
    assert len(fake.channel_messages(channel["id"])) == 1
    assert await standby.poster.run_once() == 0


async def test_the_blocked_channel_notice_goes_once_across_a_restart(harness, fake):
    bot = await harness.start()
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    fake.forbid_channel(channel["id"])
    assert await bot.poster.run_once() == 0
    await harness.stop(bot)

    restarted = await harness.start()
    restarted.poster.holder = "another-process"
    assert await restarted.poster.run_once() == 0
    posts_tried = fake.requests_to("POST", f"/channels/{channel['id']}/messages")
    assert len(posts_tried) == 1, "blocked for the day: the restarted bot does not try again"
    dms = [r for r in fake.requests_to("POST", "/messages") if r.status == 200 and "missing permission" in
           r.body.get("content", "")]
    assert len(dms) == 1, "the owner is told once"

