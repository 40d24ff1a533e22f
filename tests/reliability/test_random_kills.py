"""Randomised: a few users click through quizzes as fast as people do while the real
bot process is SIGKILLed at random moments and restarted on the same database. The
database is then audited against what the users saw: every answer shown is stored
exactly once, every stored answer is one a user saw or whose reply died with a
process, and XP equals what the stored answers earn.

The kills follow the traffic, not the wall clock: each lands at a random moment after the
users have seen a few more answers since the last restart. (With kills at fixed times in a
fixed window, a loaded machine's slow restarts ate the window and left too few answers to
mean anything; that was this test's flake.)"""

import asyncio
import random
import time

from content import default_catalog
from tests.reliability.helpers import wait_until
from tests.reliability.simulation import Ledger, SimUser, audit

USERS, KILLS = 6, 3
ANSWERS_BETWEEN_KILLS = 6  # seen by users on each process before it is killed (and after the last restart)
TRAFFIC_LIMIT_S = 150.0  # a bound for a very slow machine, not a schedule


async def test_random_sigkills_under_concurrent_users_lose_and_duplicate_nothing(fake, bots):
    rng = random.Random(20261130)
    guild, catalog, ledger = fake.add_guild(), default_catalog(), Ledger()
    await bots.start()
    deadline = time.monotonic() + TRAFFIC_LIMIT_S
    users = [
        SimUser(fake, guild, fake.add_user(f"user{i}"), catalog, ledger, random.Random(rng.random()),
                deadline=deadline, think_s=0.3, explain_share=0.0, arrive_within_s=2.0,
                ack_wait_s=4.0, reply_wait_s=8.0, retry_pause_s=(0.5, 1.5))
        for i in range(USERS)
    ]
    tasks = [asyncio.create_task(user.run()) for user in users]

    async def more_answers(count: int) -> None:
        target = len(ledger.answered) + count
        await wait_until(lambda: len(ledger.answered) >= target or all(t.done() for t in tasks),
                         max(0.0, deadline - time.monotonic()), f"{count} more answers")

    for _ in range(KILLS):
        await more_answers(ANSWERS_BETWEEN_KILLS)
        await asyncio.sleep(rng.uniform(0.0, 1.5))  # somewhere in the next few clicks
        await bots.started[-1].kill()
        await bots.start()
    await more_answers(ANSWERS_BETWEEN_KILLS)

    for user in users:
        user.deadline = time.monotonic()  # finish the click in hand, start no other
    await asyncio.wait(tasks, timeout=30)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await bots.stop_all()

    assert len(ledger.answered) >= (KILLS + 1) * ANSWERS_BETWEEN_KILLS, f"too little traffic: {ledger.replies}"
    assert ledger.unacknowledged, "the kills landed in the middle of traffic (some clicks got no reply)"
    assert not [k for k in ledger.replies if k.startswith("simulator error")], ledger.replies
    failed = [(name, detail) for name, ok, detail in audit(bots.db_path, ledger) if not ok]
    assert not failed, failed
    bots.assert_no_errors_logged()
