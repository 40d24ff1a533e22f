"""Nobody can do what they are not allowed to: admin commands, other users' data,
forged custom_ids."""

import copy

from sqlalchemy import text

from tests.e2e.conftest import button


def forge(message: dict, custom_id: str) -> dict:
    forged = copy.deepcopy(message)
    forged["components"][0]["components"][0]["custom_id"] = custom_id
    return forged


async def reply_text(fake, record):
    message = await fake.reply(record)
    return message["content"] or message["embeds"][0].get("description", "")


async def test_every_admin_command_refuses_members(harness, fake):
    bot = await harness.start()
    guild, member = fake.add_guild(), fake.add_user("member")
    channel = fake.channel(guild, "daily")
    for sub, options in [("set", {"channel": channel, "time": "09:00", "timezone": "UTC"}), ("off", {}),
                         ("preview", {})]:
        record = await fake.slash(member, "daily", guild=guild, subcommand=sub, options=options)
        assert "Manage Server" in await reply_text(fake, record), sub
    assert await bot.services.coach.daily.get_schedule(int(guild["id"])) is None
    assert not fake.channel_messages(channel["id"])
    # the command is also hidden from members by default
    daily = fake.command("daily")
    assert int(daily["default_member_permissions"]) == 1 << 5


async def test_forged_quiz_ids_cannot_touch_another_users_session(harness, fake):
    bot = await harness.start()
    guild, alice, mallory = fake.add_guild(), fake.add_user("alice"), fake.add_user("mallory")
    start = await fake.slash(alice, "quiz", guild=guild, options={"count": 5})
    await start.acknowledged()
    message = copy.deepcopy(await fake.reply(start))
    answer_id = button(message, "A")["custom_id"]
    session_id = int(answer_id.split(":")[1])

    forged = [answer_id, f"n:{session_id}:1", f"s:{session_id}", f"q:{session_id}:0:3"]
    for custom_id in forged:
        # a crafted payload: the forged id sits on the message, as a modified client could claim
        record = await fake.click(mallory, forge(message, custom_id), custom_id)
        await fake.reply(record)
    state = await bot.services.coach.quiz.get_session(session_id)
    assert state.active and state.position == 0, "alice's session is untouched"
    mallory_stats = await bot.services.coach.progress.stats(int(mallory["id"]), int(guild["id"]))
    assert mallory_stats.xp_total == 0 and mallory_stats.answered == 0

    # alice's own double click counts once
    for _ in range(2):
        record = await fake.click(alice, message, answer_id)
        await fake.reply(record)
    alice_stats = await bot.services.coach.progress.stats(int(alice["id"]), int(guild["id"]))
    assert alice_stats.answered == 1 and alice_stats.xp_total in (0, 10)


async def test_forget_deletes_only_the_confirming_users_data(harness, fake):
    bot = await harness.start()
    guild, alice, bob = fake.add_guild(), fake.add_user("alice"), fake.add_user("bob")
    for user in (alice, bob):
        start = await fake.slash(user, "quiz", guild=guild, options={"count": 5})
        await start.acknowledged()
        message = await fake.reply(start)
        click = await fake.click(user, message, button(message, "A")["custom_id"])
        await fake.reply(click)

    ask = await fake.slash(alice, "forget", guild=guild)
    await ask.acknowledged()
    confirm = await fake.reply(ask)
    stolen = await fake.click(bob, confirm, button(confirm, "Delete my data")["custom_id"])
    assert "isn't yours" in await reply_text(fake, stolen), "bob cannot press alice's confirm button"

    done = await fake.click(alice, confirm, button(confirm, "Delete my data")["custom_id"])
    assert "deleted" in (await fake.reply(done))["content"]

    async def rows_for(user_id):
        async def work(db):
            total = 0
            for table in ("quiz_sessions", "quiz_answers", "xp_events", "cards", "attempts", "users"):
                total += (await db.execute(text(f"SELECT COUNT(*) FROM {table} WHERE user_id = :u"),
                                           {"u": user_id})).scalar_one()
            return total
        return await bot.services.store.run(work)

    assert await rows_for(int(alice["id"])) == 0
    assert await rows_for(int(bob["id"])) > 0, "bob's data is kept"


async def test_stats_only_ever_show_the_callers_own_data(harness, fake):
    await harness.start()
    guild, alice, bob = fake.add_guild(), fake.add_user("alice"), fake.add_user("bob")
    start = await fake.slash(alice, "quiz", guild=guild, options={"count": 5})
    await start.acknowledged()
    message = await fake.reply(start)
    await fake.reply(await fake.click(alice, message, button(message, "A")["custom_id"]))
    record = await fake.slash(bob, "stats", guild=guild)
    await record.acknowledged()
    fields = {f["name"]: f["value"] for f in (await fake.reply(record))["embeds"][0]["fields"]}
    assert fields["Accuracy"].endswith("of 0 answers")
