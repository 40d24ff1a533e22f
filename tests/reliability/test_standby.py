"""Two bot processes and a standby (three real `coach run` children on one SQLite file,
against the fake Discord with two shards). A member is mid-quiz on a server of process 1's
shard when process 1 is SIGKILLed. Until its lease lapses nobody serves that shard (a click
then reaches no process and changes nothing); then the standby claims the shard and
connects it, and the member's next click resumes the quiz: every answer stored once, XP
once, each server's daily post once, and never two sessions on one shard."""

from __future__ import annotations

import asyncio
import time

from tests.reliability.helpers import (
    XP_CORRECT, XP_FINISH, answer_and_next, button, click, quiz_audit, schedule_daily_post, slash, snapshot, title,
    wait_until,
)

LEASE_S = 3.0


def fleet_env(bots, **settings: str) -> dict[str, str]:
    # No models at start: loading them stalls a process's event loop for a second or more at
    # a time, long enough to miss renewals of a 3-second lease (production leases are 30 s),
    # and a quiz needs none.
    return {**bots.env, "SHARD_COUNT": "2", "SHARD_LEASE_S": str(LEASE_S), "MODELS_AT_START": "false", **settings}


async def test_standby_takes_over_a_killed_process_and_the_quiz_resumes(fake, bots):
    from tests.reliability.botproc import BotProcess

    fake.gateway.limits.shard_count = fake.gateway.limits.max_concurrency = 2
    servers = [fake.add_guild("one", shard=(0, 2)), fake.add_guild("two", shard=(1, 2))]
    daily = [int(fake.channel(guild, "daily")["id"]) for guild in servers]
    for guild, channel_id in zip(servers, daily):
        await schedule_daily_post(bots, int(guild["id"]), channel_id)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")

    def process(name: str, **settings: str) -> BotProcess:
        bot = BotProcess(fake, bots.workdir, fleet_env(bots, INSTANCE_NAME=name, **settings), name)
        bots.started.append(bot)
        return bot

    one = await process("bot-1", SHARD_IDS="0").start()
    two, standby = process("bot-2", SHARD_IDS="1"), process("standby", STANDBY="true")
    await asyncio.gather(two.start(ready=lambda: fake.gateway.sessions_on(1)),
                         standby.start(ready=lambda: standby.logged("standing by")))
    assert bots.query("SELECT shard_id, owner FROM shard_leases ORDER BY shard_id") == [(0, "bot-1"), (1, "bot-2")]
    await wait_until(lambda: bots.query("SELECT COUNT(*) FROM daily_picks WHERE sent_at IS NOT NULL") == [(2,)],
                     30, "each process to post its server's daily bite")

    # Alice is mid-quiz on server one (shard 0, bot-1); Bob on server two (shard 1, bot-2).
    _, shown = await slash(fake, alice, "quiz", guild=servers[0], options={"count": 5})
    message_id = int(shown["id"])
    await answer_and_next(fake, alice, message_id, "A")
    await click(fake, alice, snapshot(fake, message_id), "B")
    answered_two = snapshot(fake, message_id)
    _, bobs = await slash(fake, bob, "quiz", guild=servers[1], options={"count": 5})
    stored_before = quiz_audit(bots, int(alice["id"]))
    assert [a[1] for a in stored_before["answers"]] == [0, 1]

    killed_at = time.monotonic()
    await one.kill(shards=[0])

    # Nobody serves shard 0 until the lease lapses: this click reaches no process.
    lost = await fake.click(alice, answered_two, button(answered_two, "Next")["custom_id"])
    assert not lost.delivered
    assert quiz_audit(bots, int(alice["id"])) == stored_before

    await wait_until(lambda: fake.gateway.sessions_on(0), 6 * LEASE_S + 10, "the standby to connect shard 0")
    failover_s = time.monotonic() - killed_at
    assert bots.query("SELECT owner FROM shard_leases WHERE shard_id = 0") == [("standby",)]
    taken = standby.logged("shard lease acquired")
    assert [(t["shard"], t["from"], t["lapsed"]) for t in taken] == [(0, "bot-1", True)], "taken once it lapsed"

    # Alice's next click resumes where she was; Bob, on the other process, never noticed.
    resumed = await click(fake, alice, answered_two, "Next")
    assert int(resumed["id"]) == message_id and title(resumed).startswith("Quiz · 3/5")
    for letter in "CDA":
        finished = await answer_and_next(fake, alice, message_id, letter)
    assert title(finished) == "Quiz finished"
    bobs_next = await click(fake, bob, bobs, "A")
    assert title(bobs_next).startswith("1/5 · ")

    stored = quiz_audit(bots, int(alice["id"]))
    assert [a[1] for a in stored["answers"]] == [0, 1, 2, 3, 4], "every question answered exactly once"
    assert stored["answers"][:2] == stored_before["answers"]
    assert [s[1] for s in stored["sessions"]] == ["finished"]
    assert stored["xp_total"] == XP_CORRECT * stored["correct"] + XP_FINISH, stored["xp"]

    # The daily posts: once per server, though the standby ran its poster on taking shard 0.
    for channel_id in daily:
        assert len(fake.channel_messages(channel_id)) == 1
    assert bots.query("SELECT COUNT(*) FROM daily_picks") == [(2,)]

    # bot-1 restarted (same name) must not take shard 0 back from the live standby.
    restarted = process("bot-1", SHARD_IDS="0")
    await restarted.start(ready=lambda: restarted.logged("shard held by another process; waiting for its lease to lapse"))
    await asyncio.sleep(2 * LEASE_S)
    assert restarted.logged("shard connected") == []
    assert len(fake.gateway.sessions_on(0)) == 1 and fake.gateway.overlaps == []
    assert all(i.accepted for i in fake.gateway.identifies), "every identify respected its bucket's window"
    bots.assert_no_errors_logged()
    print(f"failover: shard 0 back {failover_s:.1f}s after the SIGKILL (lease {LEASE_S}s)")
