"""/daily set (admins only), the daily post sent exactly once (also across a restart
and a crash between sending and recording), yesterday's results, a 429 on the post,
and a channel the bot lost access to."""

import copy
from datetime import datetime, timedelta, timezone

from bot.render import messages as render
from bot.discord.daily_poster import post_nonce
from tests.e2e.conftest import button, buttons


class Clock:
    def __init__(self, moment: datetime):
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


async def set_daily(fake, guild, user, *, admin=True, time="00:00", tz="UTC"):
    channel = fake.channel(guild, "daily")
    record = await fake.slash(user, "daily", guild=guild, subcommand="set", admin=admin,
                              options={"channel": channel, "time": time, "timezone": tz})
    await record.acknowledged()
    return channel, (await fake.reply(record))["content"]


async def test_daily_set_is_for_admins_and_posts_once_across_a_restart(harness, fake):
    bot = await harness.start()
    guild, admin, member = fake.add_guild(), fake.add_user("admin"), fake.add_user("member")

    _, refusal = await set_daily(fake, guild, member, admin=False)
    assert "Manage Server" in refusal
    assert await bot.services.coach.daily.get_schedule(int(guild["id"])) is None, "nothing stored for a member"

    channel, confirmation = await set_daily(fake, guild, admin)
    assert f"<#{channel['id']}>" in confirmation and "00:00 UTC" in confirmation

    assert await bot.poster.run_once() == 1
    posts = fake.channel_messages(channel["id"])
    assert len(posts) == 1
    post = posts[0]
    assert post["embeds"][0]["title"].startswith("Daily bite · ")
    assert [b["label"] for b in buttons(post)][:4] == ["A", "B", "C", "D"]
    assert post["nonce"].startswith("daily-")
    assert await bot.poster.run_once() == 0, "not twice"

    answer = await fake.click(member, post, button(post, "B")["custom_id"])
    await answer.acknowledged()
    first = await fake.reply(answer)
    assert first["flags"] & 64, "answered privately"
    again = await fake.click(member, post, button(post, "C")["custom_id"])
    await again.acknowledged()
    assert "counted once" in (await fake.reply(again))["content"]

    await harness.stop(bot)
    restarted = await harness.start()
    assert await restarted.poster.run_once() == 0, "a restart does not post again"
    assert len(fake.channel_messages(channel["id"])) == 1


async def test_crash_between_send_and_record_is_deduplicated_by_nonce(harness, fake):
    bot = await harness.start()
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    coach = bot.services.coach
    (due,) = await coach.daily.due_posts()
    # What a bot killed right after Discord accepted the post had done: picked, sent, not recorded.
    pick = await coach.daily.pick_daily(due.schedule.guild_id, due.local_date, due.schedule.track)
    await bot.send_post(int(channel["id"]), render.daily_post(pick, bot.services.catalog.bites[pick.bite_id]), post_nonce(pick))
    await harness.stop(bot)

    restarted = await harness.start()
    await restarted.poster.run_once()
    assert len(fake.channel_messages(channel["id"])) == 1, "Discord dropped the resend by its nonce"
    assert await restarted.services.coach.daily.due_posts() == [], "and the post is now recorded as sent"


async def test_next_post_shows_how_the_server_answered_yesterday(harness, fake):
    clock = Clock(datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc))
    bot = await harness.start(clock=clock)
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin, time="09:00")
    await bot.poster.run_once()
    (post,) = fake.channel_messages(channel["id"])
    for name, letter in [("u1", "A"), ("u2", "B"), ("u3", "B")]:
        click = await fake.click(fake.add_user(name), post, button(post, letter)["custom_id"])
        await fake.reply(click)

    clock.moment += timedelta(days=1)
    assert await bot.poster.run_once() == 1
    today = fake.channel_messages(channel["id"])[-1]
    fields = {f["name"]: f["value"] for f in today["embeds"][0]["fields"]}
    assert "3 answered; 67% chose B" in fields["Yesterday"]


async def test_a_429_on_the_post_is_retried(harness, fake):
    bot = await harness.start()
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    fake.inject(429, method="POST", path=rf"/channels/{channel['id']}/messages$", times=1, retry_after=0.3)
    assert await bot.poster.run_once() == 1
    attempts = fake.requests_to("POST", f"/channels/{channel['id']}/messages")
    assert [r.status for r in attempts] == [429, 200]
    assert attempts[1].at - attempts[0].at >= 0.3, "retry_after was honoured"
    assert len(fake.channel_messages(channel["id"])) == 1


async def test_lost_channel_access_warns_the_owner_once_and_does_not_crash(harness, fake):
    bot = await harness.start()
    guild, admin = fake.add_guild(), fake.add_user("admin")
    channel, _ = await set_daily(fake, guild, admin)
    fake.forbid_channel(channel["id"])
    assert await bot.poster.run_once() == 0
    assert await bot.poster.run_once() == 0
    dm_posts = [r for r in fake.requests_to("POST", "/messages") if r.status == 200]
    assert len(dm_posts) == 1 and "missing permission" in dm_posts[0].body["content"]
    dm_channel = fake.channels[int(dm_posts[0].path.split("/")[-2])]
    assert dm_channel["recipients"][0]["id"] == fake.owner_user["id"]
    assert await bot.services.coach.daily.due_posts(), "still due: it goes out once access is back (tomorrow)"
