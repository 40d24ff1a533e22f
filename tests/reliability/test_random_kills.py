"""Randomised: a few users click through quizzes as fast as people do while the real
bot process is SIGKILLed at random moments and restarted on the same database. The
database is then audited against what the users saw: every answer shown is stored
exactly once, every stored answer is one a user saw or whose reply died with a
process, and XP equals what the stored answers earn."""

import asyncio
import random
import time

from content import default_catalog
from tests.reliability.simulation import Ledger, SimUser, audit

USERS, TRAFFIC_S, KILLS = 6, 30.0, 3


async def test_random_sigkills_under_concurrent_users_lose_and_duplicate_nothing(fake, bots):
    rng = random.Random(20261130)
    guild, catalog, ledger = fake.add_guild(), default_catalog(), Ledger()
    await bots.start()
    deadline = time.monotonic() + TRAFFIC_S
    users = [
        SimUser(fake, guild, fake.add_user(f"user{i}"), catalog, ledger, random.Random(rng.random()),
                deadline=deadline, think_s=0.3, explain_share=0.0, arrive_within_s=2.0,
                ack_wait_s=4.0, reply_wait_s=8.0, retry_pause_s=(0.5, 1.5))
        for i in range(USERS)
    ]
    tasks = [asyncio.create_task(user.run()) for user in users]

    for moment in sorted(rng.uniform(3, TRAFFIC_S - 6) for _ in range(KILLS)):
        await asyncio.sleep(max(0.0, deadline - TRAFFIC_S + moment - time.monotonic()))
        await bots.started[-1].kill()
        await bots.start()

    await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()) + 15)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await bots.stop_all()

    assert len(ledger.answered) >= 20, f"too little traffic to mean anything: {ledger.replies}"
    assert ledger.unacknowledged, "the kills landed in the middle of traffic (some clicks got no reply)"
    assert not [k for k in ledger.replies if k.startswith("simulator error")], ledger.replies
    failed = [(name, detail) for name, ok, detail in audit(bots.db_path, ledger) if not ok]
    assert not failed, failed
    bots.assert_no_errors_logged()
