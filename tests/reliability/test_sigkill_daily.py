"""SIGKILL mid-daily-post: the bot recorded today's pick and its message POST is in
flight when the process dies. After a restart the post exists exactly once, whether or
not the lost request reached Discord: the restarted bot looks in the channel first and
records a post it finds there; one it does not find it sends again with the same nonce
(`enforce_nonce`: Discord, here the fake, would return the first message)."""

import asyncio

import pytest

from tests.reliability.helpers import schedule_daily_post, wait_until


@pytest.mark.parametrize("lost_request_landed", [True, False], ids=["post-reached-discord", "post-never-arrived"])
async def test_sigkill_mid_daily_post_sends_it_exactly_once(fake, bots, lost_request_landed):
    guild = fake.add_guild()
    channel_id = int(fake.channel(guild, "daily")["id"])
    await schedule_daily_post(bots, int(guild["id"]), channel_id)
    posts = rf"/channels/{channel_id}/messages$"
    held = fake.hold("POST", posts, land=lost_request_landed)

    first = await bots.start()  # the poster runs at start: pick, then send
    await asyncio.wait_for(held.arrived.wait(), 30)
    picks = bots.query("SELECT id, sent_at FROM daily_picks")
    assert len(picks) == 1 and picks[0][1] is None, "the pick is recorded before the send, not yet marked sent"
    pick_id = picks[0][0]

    await first.kill()
    held.released.set()
    await held.finished.wait()
    assert len(fake.channel_messages(channel_id)) == (1 if lost_request_landed else 0)

    await bots.start()
    sent = await wait_until(lambda: bots.query("SELECT message_ids FROM daily_picks WHERE sent_at IS NOT NULL"),
                          30, "the restarted bot to mark the post sent")

    messages = fake.channel_messages(channel_id)
    assert len(messages) == 1, f"{len(messages)} daily posts in the channel"
    assert messages[0]["nonce"] == f"daily-{pick_id}"
    assert bots.query("SELECT COUNT(*) FROM daily_picks") == [(1,)]
    assert str(messages[0]["id"]) in sent[0][0], "the stored message id is the one in the channel"
    attempts = [r for r in fake.requests_to("POST", f"/channels/{channel_id}/messages")]
    looked = [r for r in fake.requests_to("GET", f"/channels/{channel_id}/messages") if r.status == 200]
    assert looked, "the restarted bot looked in the channel before sending again"
    if lost_request_landed:  # found there: recorded, not sent again
        assert len(attempts) == 1
    else:  # not there: sent again, with the same nonce, so Discord would drop a duplicate
        assert len(attempts) == 2 and all(r.body.get("enforce_nonce") for r in attempts)
        assert len({r.body["nonce"] for r in attempts}) == 1, "the retry reuses the nonce"
    bots.assert_no_errors_logged()
