"""A full /quiz run to its summary, and a restart in the middle of one."""

import copy

from tests.e2e.conftest import button, buttons, original
from tests.fakediscord.records import RESPONSE_MESSAGE, RESPONSE_UPDATE


async def answer_current(fake, user, message, letter="A"):
    click = await fake.click(user, message, button(message, letter)["custom_id"])
    assert await click.acknowledged() == RESPONSE_UPDATE
    return click


async def test_full_quiz_to_summary(harness, fake):
    await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    start = await fake.slash(alice, "quiz", guild=guild, options={"count": 5})
    assert await start.acknowledged() == RESPONSE_MESSAGE
    message = original(fake, start)
    assert message["flags"] & 64, "the quiz is ephemeral"
    embed = message["embeds"][0]
    assert embed["title"].startswith("Quiz · 1/5")
    assert [b["label"] for b in buttons(message)][:5] == ["A", "B", "C", "D", "Stop"]

    for position in range(5):
        await answer_current(fake, alice, message)
        after = fake.messages[int(message["id"])]
        assert after["embeds"][0]["title"].startswith(f"{position + 1}/5")
        assert "Why:" in after["embeds"][0]["description"]
        label = "Finish" if position == 4 else "Next"
        assert any(b["label"] == "Read the bite" for b in buttons(after))
        nxt = await fake.click(alice, after, button(after, label)["custom_id"])
        assert await nxt.acknowledged() == RESPONSE_UPDATE
        message = fake.messages[int(message["id"])]

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
    message = copy.deepcopy(original(fake, start))  # as the user's client still shows it
    await answer_current(fake, bob, message, "B")
    answered = fake.messages[int(message["id"])]
    await harness.stop(bot)

    await harness.start()  # a new client on the same database
    nxt = await fake.click(bob, answered, button(answered, "Next")["custom_id"])
    assert await nxt.acknowledged() == RESPONSE_UPDATE
    resumed = fake.messages[int(message["id"])]
    assert resumed["embeds"][0]["title"].startswith("Quiz · 2/5"), "resumes after the last answered question"
    # and an old A-D button from question 1 does not count a second time
    stale = await fake.click(bob, message, button(message, "C")["custom_id"])
    await stale.acknowledged()
    assert stale.response_type == RESPONSE_MESSAGE
    assert "already answered" in fake.messages[stale.original_message_id]["content"]
