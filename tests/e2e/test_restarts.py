"""A restart between the steps of each multi-step flow: the client that showed a step is
stopped, a new one starts on the same database, and the member's next click still works.

Covered elsewhere: quiz start → answer → restart → answer (test_quiz.py,
test_restart_mid_quiz_old_button_still_works; a SIGKILL in tests/reliability/test_sigkill_quiz.py);
a grade → restart → "grade as another bite", and /forget → restart → confirm
(test_shared_state.py); the daily post claimed → restart → posted once (test_daily.py,
test_shared_state.py; a SIGKILL mid-send in tests/reliability/test_sigkill_daily.py). A restart between every step of every flow is the
soak benchmark's sweep (bench/soak.py --sweep)."""

from __future__ import annotations

from tests.e2e.conftest import ANSWERED, button
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
