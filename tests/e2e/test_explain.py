"""/explain through the modal to graded feedback, with the LLM down: the CPU grader answers
and says so (the embedding judge by default; the trained judge in its worker process when
`CPU_JUDGE=trained`)."""

from tests.e2e.conftest import ANSWERED, button
from tests.fakediscord.records import RESPONSE_DEFER, RESPONSE_MODAL

GOOD_ANSWER = (
    "The KV cache keeps the attention keys and values of earlier tokens for every layer, so each decode step "
    "only computes the key and value for the newest token. It saves compute, but the cache memory grows with "
    "sequence length and batch size, and that memory often limits how many requests fit on the GPU."
)


async def submit_answer(fake, user, guild, modal_custom_id, text):
    record = await fake.submit(user, modal_custom_id, {"answer": text}, guild=guild)
    assert await record.acknowledged() == RESPONSE_DEFER, "grading is deferred at once"
    assert record.first_response_latency < 3.0
    return record, await fake.reply(record)


async def test_explain_topic_modal_and_fallback_grade(harness, fake):
    await harness.start()
    guild, alice = fake.add_guild(), fake.add_user("alice")
    prompt = await fake.slash(alice, "explain", guild=guild, options={"topic": "kv cache"})
    assert await prompt.acknowledged() in ANSWERED
    shown = await fake.reply(prompt)
    assert "Walk me through how the KV cache" in shown["embeds"][0]["description"]

    opened = await fake.click(alice, shown, button(shown, "Answer")["custom_id"])
    assert await opened.acknowledged() == RESPONSE_MODAL
    modal = opened.modal
    assert modal["custom_id"] == "m:kv-cache" and len(modal["title"]) <= 45

    _, reply = await submit_answer(fake, alice, guild, modal["custom_id"], GOOD_ANSWER)
    embed = reply["embeds"][0]
    assert embed["title"].startswith("Score ")
    assert "fallback embedding grader" in embed["footer"]["text"], "a fallback grade is labelled as such"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert "Model answer" in fields and "Follow-up an interviewer would ask" in fields
    assert "Graded against **The KV cache**" in embed["description"]
    labels = [c["label"] for row in reply["components"] for c in row["components"]]
    assert "Try again" in labels

    stats = await fake.slash(alice, "stats", guild=guild)
    await stats.acknowledged()
    stats_fields = {f["name"]: f["value"] for f in (await fake.reply(stats))["embeds"][0]["fields"]}
    assert "The KV cache" in stats_fields["Last explanations"], "the attempt is stored"


async def test_explain_without_topic_names_the_bite_it_found(harness, fake):
    await harness.start()
    guild, bob = fake.add_guild(), fake.add_user("bob")
    opened = await fake.slash(bob, "explain", guild=guild)
    assert await opened.acknowledged() == RESPONSE_MODAL, "no topic: the answer box opens straight away"
    assert opened.modal["custom_id"] == "m:-"
    _, reply = await submit_answer(fake, bob, guild, "m:-", GOOD_ANSWER)
    embed = reply["embeds"][0]
    assert "**The KV cache** (found from your answer)" in embed["description"]
    labels = [c["label"] for row in reply["components"] for c in row["components"]]
    assert any(label.startswith("Grade as: ") for label in labels), "a way to pick another bite"


async def test_off_topic_answer_gets_suggestions_not_a_grade(harness, fake):
    await harness.start()
    guild, carol = fake.add_guild(), fake.add_user("carol")
    _, reply = await submit_answer(fake, carol, guild, "m:-",
                                   "My favourite pasta recipe uses fresh basil, garlic and a lot of parmesan cheese.")
    assert not reply["embeds"], "not graded"
    assert "doesn't seem to be about any bite" in reply["content"]


async def test_explain_is_rate_limited_per_user(harness, fake):
    await harness.start()
    guild, dave, erin = fake.add_guild(), fake.add_user("dave"), fake.add_user("erin")
    limit = harness.settings.explain_rate_limit
    for _ in range(limit):
        _, reply = await submit_answer(fake, dave, guild, "m:kv-cache", GOOD_ANSWER)
        assert reply["embeds"], "graded"
    _, refused = await submit_answer(fake, dave, guild, "m:kv-cache", GOOD_ANSWER)
    assert "try again in" in refused["content"].lower() and not refused["embeds"]
    _, other = await submit_answer(fake, erin, guild, "m:kv-cache", GOOD_ANSWER)
    assert other["embeds"][0]["title"].startswith("Score "), "other users are unaffected"


async def test_the_trained_judge_grades_in_its_worker_process(harness, fake):
    await harness.start(cpu_judge="trained", grader_workers=1)
    guild, dana = fake.add_guild(), fake.add_user("dana")
    _, reply = await submit_answer(fake, dana, guild, "m:kv-cache", GOOD_ANSWER)
    embed = reply["embeds"][0]
    assert embed["title"].startswith("Score ") and "CPU grader" in embed["footer"]["text"]
