"""A restart between the steps of each multi-step flow: the client that showed a step is
stopped, a new one starts on the same database, and the member's next click still works.

Covered elsewhere: quiz start → answer → restart → answer (test_quiz.py,
test_restart_mid_quiz_old_button_still_works; a SIGKILL in tests/reliability/test_sigkill_quiz.py);
the daily post claimed → restart → posted once (test_daily.py; a SIGKILL mid-send in
tests/reliability/test_sigkill_daily.py). A restart between every step of every flow is the
soak benchmark's sweep (bench/soak.py --sweep)."""

from __future__ import annotations

from sqlalchemy import text

from tests.e2e.conftest import ANSWERED, button, buttons
from tests.e2e.test_explain import GOOD_ANSWER, submit_answer
from tests.fakediscord.records import RESPONSE_MODAL


async def restart(harness, bot):
    await harness.stop(bot)
    return await harness.start()


async def test_explain_prompt_then_restart_then_answer(harness, fake):
    bot = await harness.start()
    guild, ada = fake.add_guild(), fake.add_user("ada")
    prompt = await fake.slash(ada, "explain", guild=guild, options={"topic": "kv cache"})
    assert await prompt.acknowledged() in ANSWERED
    shown = await fake.reply(prompt)

    await restart(harness, bot)
    opened = await fake.click(ada, shown, button(shown, "Answer")["custom_id"])
    assert await opened.acknowledged() == RESPONSE_MODAL
    _, graded = await submit_answer(fake, ada, guild, opened.modal["custom_id"], GOOD_ANSWER)
    assert graded["embeds"][0]["title"].startswith("Score ")


async def test_grade_as_another_bite_survives_a_restart(harness, fake):
    bot = await harness.start()
    guild, bo = fake.add_guild(), fake.add_user("bo")
    _, graded = await submit_answer(fake, bo, guild, "m:-", GOOD_ANSWER)
    other = next(b for b in buttons(graded) if b["label"].startswith("Grade as: "))

    await restart(harness, bot)
    record = await fake.click(bo, graded, other["custom_id"])
    await record.acknowledged()
    regraded = await fake.reply(record)
    assert regraded.get("embeds"), regraded.get("content")
    bite_title = other["label"].removeprefix("Grade as: ")
    assert f"Graded against **{bite_title}**" in regraded["embeds"][0]["description"], "the draft outlived the restart"


async def test_forget_confirmation_survives_a_restart(harness, fake):
    bot = await harness.start()
    guild, cy = fake.add_guild(), fake.add_user("cy")
    start = await fake.slash(cy, "quiz", guild=guild, options={"count": 5})
    await start.acknowledged()
    question = await fake.reply(start)
    await fake.reply(await fake.click(cy, question, button(question, "A")["custom_id"]))
    ask = await fake.slash(cy, "forget", guild=guild)
    await ask.acknowledged()
    confirm = await fake.reply(ask)

    bot = await restart(harness, bot)
    done = await fake.click(cy, confirm, button(confirm, "Delete my data")["custom_id"])
    await done.acknowledged()
    assert "deleted" in (await fake.reply(done))["content"]

    async def rows(db):
        return (await db.execute(text("SELECT COUNT(*) FROM quiz_answers WHERE user_id = :u"),
                                 {"u": int(cy["id"])})).scalar_one()

    assert await bot.services.store.run(rows) == 0
