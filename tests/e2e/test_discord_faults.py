"""Discord faults: a 429 on every route the bot uses, a 5xx on a followup, an expired
interaction token, and a handler slower than Discord's 3 seconds."""

import asyncio

from bot.render.replies import notice
from tests.e2e.conftest import ANSWERED, UPDATED, button
from tests.e2e.test_explain import GOOD_ANSWER
from tests.fakediscord.records import RESPONSE_DEFER


def route_statuses(fake):
    by_route = {}
    for r in fake.requests:
        key = (r.method, "/".join("#" if part.isdigit() or part.startswith("itok-") else part
                                  for part in r.path.split("/")))
        by_route.setdefault(key, []).append(r.status)
    return by_route


async def test_429_on_every_route_is_honoured(harness, fake):
    fake.inject(429, per_route=True, times=1, retry_after=0.05)  # once per distinct route, login included
    bot = await harness.start()
    guild, admin, user = fake.add_guild(), fake.add_user("admin"), fake.add_user("user")

    start = await fake.slash(user, "quiz", guild=guild, options={"count": 5})
    assert await start.acknowledged() in ANSWERED
    message = await fake.reply(start)
    click = await fake.click(user, message, button(message, "A")["custom_id"])
    assert await click.acknowledged() in UPDATED
    graded = await fake.submit(user, "m:kv-cache", {"answer": GOOD_ANSWER}, guild=guild)
    assert (await fake.reply(graded))["embeds"][0]["title"].startswith("Score")
    channel = fake.channel(guild, "daily")
    setting = await fake.slash(admin, "daily", guild=guild, subcommand="set", admin=True,
                               options={"channel": channel, "time": "00:00", "timezone": "UTC"})
    await setting.acknowledged()
    assert await bot.poster.run_once() == 1
    await bot.send_dm(int(user["id"]), "a reminder")

    statuses = route_statuses(fake)
    assert len(statuses) >= 7, statuses.keys()  # login, app info, sync, callback, edit, post, DM
    for route, seen in statuses.items():
        if route[1].endswith("/callback") or seen == [200]:
            continue  # each interaction's callback is its own route; the first of them took the 429
        assert seen[0] == 429 and 200 in seen, (route, seen)
    assert all(r.first_response_latency < 3.0 for r in fake.interactions.values())
    assert len(fake.channel_messages(channel["id"])) == 1


async def test_5xx_on_a_followup_is_retried(harness, fake):
    await harness.start()
    guild, user = fake.add_guild(), fake.add_user("user")
    fake.inject(500, path=r"/webhooks/\d+/[^/]+(/messages/@original)?$", times=1)  # the deferred reply
    record = await fake.submit(user, "m:kv-cache", {"answer": GOOD_ANSWER}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER
    reply = await fake.reply(record)
    assert reply["embeds"][0]["title"].startswith("Score")
    statuses = [r.status for r in fake.requests if "/webhooks/" in r.path]
    assert statuses == [500, 200]


async def test_expired_token_loses_the_reply_but_not_the_attempt(harness, fake):
    bot = await harness.start()
    guild, user = fake.add_guild(), fake.add_user("user")
    # Hold the followup back with a 429 long enough to move the clock past 15 minutes.
    fake.inject(429, path=r"/webhooks/\d+/[^/]+(/messages/@original)?$", times=1, retry_after=0.5)
    record = await fake.submit(user, "m:kv-cache", {"answer": GOOD_ANSWER}, guild=guild)
    await record.acknowledged()
    fake.advance(16 * 60)
    await record.wait(lambda r: any(what == "expired token" for what, *_ in r.rejected), timeout=60)
    assert not record.followups and not record.edits
    stats = await bot.services.coach.progress.stats(int(user["id"]), int(guild["id"]))
    assert [a.bite_id for a in stats.last_attempts] == ["kv-cache"], "the graded attempt is stored once"

    # the bot carries on with the next interaction
    nxt = await fake.slash(user, "help", guild=guild)
    assert await nxt.acknowledged() in ANSWERED


async def test_a_slow_handler_is_deferred_within_three_seconds(harness, fake):
    bot = await harness.start()

    async def slow(actor):
        await asyncio.sleep(2.5)
        return notice("done slowly")

    @bot.tree.command(name="slowpoke", description="test only")
    async def slowpoke(interaction):
        await bot.adapter.on_command(interaction, "slowpoke", slow)

    await bot.tree.sync()
    guild, user = fake.add_guild(), fake.add_user("user")
    record = await fake.slash(user, "slowpoke", guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER
    assert record.first_response_latency < 3.0
    assert (await fake.reply(record, timeout=10))["content"] == "done slowly"


async def test_a_burst_of_users_is_acknowledged_in_time_and_answered(harness, fake):
    await harness.start()
    guild = fake.add_guild()
    users = [fake.add_user(f"u{i}") for i in range(30)]

    async def one(user):
        message = await fake.reply(await fake.slash(user, "quiz", guild=guild, options={"count": 5}))
        after = await fake.reply(await fake.click(user, message, button(message, "B")["custom_id"]))
        assert after["id"] == message["id"] and after["embeds"][0]["title"].startswith("1/5")
        return after

    await asyncio.gather(*(one(u) for u in users))
    records = list(fake.interactions.values())
    assert len(records) == 60 and not any(r.rejected for r in records)
    assert max(r.first_response_latency for r in records) < 3.0
