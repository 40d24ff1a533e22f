"""A full /quiz run to its summary, and a restart in the middle of one."""

import copy

from tests.e2e.conftest import ANSWERED, UPDATED, button, buttons


async def answer_current(fake, user, message, letter="A"):
    click = await fake.click(user, message, button(message, letter)["custom_id"])
    assert await click.acknowledged() in UPDATED
    return await fake.reply(click)


async def test_full_quiz_to_summary(harness, fake):
    await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    start = await fake.slash(alice, "quiz", guild=guild, options={"count": 5})
    assert await start.acknowledged() in ANSWERED
    message = await fake.reply(start)
    assert message["flags"] & 64, "the quiz is ephemeral"
    embed = message["embeds"][0]
    assert embed["title"].startswith("Quiz · 1/5")
    assert [b["label"] for b in buttons(message)][:5] == ["A", "B", "C", "D", "Stop"]

    for position in range(5):
        after = await answer_current(fake, alice, message)
        assert after["id"] == message["id"], "the quiz message is updated in place"
        assert after["embeds"][0]["title"].startswith(f"{position + 1}/5")
        assert "Why:" in after["embeds"][0]["description"]
        label = "Finish" if position == 4 else "Next"
        assert any(b["label"] == "Read the bite" for b in buttons(after))
        nxt = await fake.click(alice, after, button(after, label)["custom_id"])
        assert await nxt.acknowledged() in UPDATED
        message = await fake.reply(nxt)

    summary = message["embeds"][0]
    assert summary["title"] == "Quiz finished"
    names = {f["name"]: f["value"] for f in summary["fields"]}
    assert set(names) >= {"Score", "XP", "Streak", "Reviews due"}
    assert names["Score"].endswith("/5")
    # every interaction was acknowledged well inside Discord's 3 seconds
    latencies = [r.first_response_latency for r in fake.interactions.values()]
    assert all(latency is not None and latency < 3.0 for latency in latencies)
    assert not any(r.rejected for r in fake.interactions.values())


async def test_restart_mid_quiz_old_button_still_works(harness, fake):
    bot = await harness.start()
    guild, bob = fake.add_guild(), fake.add_user("bob")
    start = await fake.slash(bob, "quiz", guild=guild, options={"count": 5})
    await start.acknowledged()
    message = copy.deepcopy(await fake.reply(start))  # as the user's client still shows it
    answered = copy.deepcopy(await answer_current(fake, bob, message, "B"))
    await harness.stop(bot)

    await harness.start()  # a new client on the same database
    nxt = await fake.click(bob, answered, button(answered, "Next")["custom_id"])
    assert await nxt.acknowledged() in UPDATED
    resumed = await fake.reply(nxt)
    assert resumed["embeds"][0]["title"].startswith("Quiz · 2/5"), "resumes after the last answered question"
    # and an old A-D button from question 1 does not count a second time
    stale = await fake.click(bob, message, button(message, "C")["custom_id"])
    await stale.acknowledged()
    refusal = await fake.reply(stale)
    assert refusal["id"] != message["id"] and refusal["flags"] & 64, "a private notice, the quiz is left alone"
    assert "already answered" in refusal["content"]


async def test_quiz_me_on_a_bite_starts_that_bites_quiz(harness, fake):
    await harness.start()
    guild, carol = fake.add_guild(), fake.add_user("carol")
    shown = await fake.slash(carol, "bite", guild=guild, options={"topic": "kv cache"})
    bite_message = await fake.reply(shown)
    click = await fake.click(carol, bite_message, button(bite_message, "Quiz me")["custom_id"])
    assert await click.acknowledged() in ANSWERED
    quiz = await fake.reply(click)
    # The e2e track's kv-cache bite has two questions and one related bite with two more.
    assert quiz["embeds"][0]["title"].startswith("Quiz · 1/4")
    own_stems = {"What exactly does the KV cache hold during generation?",
                 "How does the KV cache's memory grow while serving a batch of requests?"}
    assert any(stem in quiz["embeds"][0]["description"] for stem in own_stems), quiz["embeds"][0]["description"]
