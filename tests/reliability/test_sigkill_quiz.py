"""SIGKILL mid-quiz: the real bot process dies, a new one starts on the same database,
and the quiz goes on from the last answered question — nothing lost, no XP twice."""

from tests.reliability.helpers import (
    XP_CORRECT, XP_FINISH, answer_and_next, assert_interactions_healthy, button, click, quiz_audit, slash,
    snapshot, title, wait_until,
)


async def test_sigkill_between_answers_resumes_from_last_answered(fake, bots):
    guild, alice = fake.add_guild(), fake.add_user("alice")
    user_id = int(alice["id"])
    first = await bots.start()

    start, shown = await slash(fake, alice, "quiz", guild=guild, options={"count": 5})
    message_id = int(shown["id"])
    await answer_and_next(fake, alice, message_id, "A")
    question_two = snapshot(fake, message_id)
    assert title(question_two).startswith("Quiz · 2/5")
    await click(fake, alice, question_two, "B")
    answered_two = snapshot(fake, message_id)  # what alice sees when the bot dies
    stored_before = quiz_audit(bots, user_id)
    assert [a[1] for a in stored_before["answers"]] == [0, 1]

    await first.kill()

    stored_after_kill = quiz_audit(bots, user_id)
    assert stored_after_kill == stored_before, "a committed answer was lost with the process"
    assert stored_after_kill["sessions"][0][1:] == ("active", 2)

    await bots.start()
    # The Next button on the message the dead process sent still works and resumes at 3/5.
    resumed = await click(fake, alice, answered_two, "Next")
    assert int(resumed["id"]) == message_id and title(resumed).startswith("Quiz · 3/5")
    # An answer button for question 2, clicked again, is refused and counts nothing.
    stale = await click(fake, alice, question_two, "C")
    assert "already answered" in stale["content"]
    assert quiz_audit(bots, user_id)["xp_total"] == stored_before["xp_total"]

    for letter in "ABC":
        message = await answer_and_next(fake, alice, message_id, letter)
    assert title(message) == "Quiz finished"
    fields = {f["name"]: f["value"] for f in message["embeds"][0]["fields"]}

    stored = quiz_audit(bots, user_id)
    assert [a[1] for a in stored["answers"]] == [0, 1, 2, 3, 4], "every question answered exactly once"
    assert stored["answers"][:2] == stored_before["answers"], "answers from before the kill kept as they were"
    assert [s[1] for s in stored["sessions"]] == ["finished"]
    assert stored["xp_total"] == XP_CORRECT * stored["correct"] + XP_FINISH, stored["xp"]
    assert fields["XP"].startswith(f"+{stored['xp_total']}")
    assert fields["Score"] == f"{stored['correct']}/5"
    assert_interactions_healthy(fake)
    bots.assert_no_errors_logged()


async def test_sigkill_while_answer_reply_in_flight_counts_it_once(fake, bots):
    """The answer is committed, the reply to Discord is lost with the process: the user
    clicks again on the new process, is told it counted once, and `/quiz` resumes."""
    guild, bob = fake.add_guild(), fake.add_user("bob")
    user_id = int(bob["id"])
    first = await bots.start()

    _, shown = await slash(fake, bob, "quiz", guild=guild, options={"count": 5})
    message_id = int(shown["id"])
    await answer_and_next(fake, bob, message_id, "B")
    question_two = snapshot(fake, message_id)

    # Hold the bot's first response to the next click (its answer, or its defer while
    # the handler goes on), wait until the answer is committed, then kill the process.
    held = fake.hold("POST", r"/interactions/\d+/[^/]+/callback", land=False)
    lost = await fake.click(bob, question_two, button(question_two, "A")["custom_id"])
    await held.arrived.wait()
    await wait_until(lambda: [a[1] for a in quiz_audit(bots, user_id)["answers"]] == [0, 1], 15,
                     "the answer to question 2 to be committed")
    stored_before = quiz_audit(bots, user_id)
    await first.kill()
    held.released.set()
    await held.finished.wait()
    assert title(fake.messages[message_id]) == title(question_two), "bob never saw the answer land"
    assert quiz_audit(bots, user_id) == stored_before

    await bots.start()
    again = await click(fake, bob, question_two, "A")
    assert "counted once" in again["content"]
    _, resumed = await slash(fake, bob, "quiz", guild=guild, options={"count": 5})
    assert title(resumed).startswith("Quiz · 3/5"), "resumes after the last answered question"
    message_id = int(resumed["id"])

    for letter in "DCB":
        message = await answer_and_next(fake, bob, message_id, letter)
    assert title(message) == "Quiz finished"

    stored = quiz_audit(bots, user_id)
    assert [a[1] for a in stored["answers"]] == [0, 1, 2, 3, 4]
    assert len(stored["sessions"]) == 1, "resuming must not start a second session"
    assert stored["xp_total"] == XP_CORRECT * stored["correct"] + XP_FINISH, stored["xp"]
    assert_interactions_healthy(fake, ignore=(lost.id,))
    bots.assert_no_errors_logged()
