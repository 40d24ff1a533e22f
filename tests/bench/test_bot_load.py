"""The load benchmark's think-time model at a tiny size: five users against the fake Discord
and a real `coach run` process, think time scaled down. The report has every interaction
kind with sane numbers (positive, finite, in order); no timing thresholds (the machine is
shared: how fast is bench/bot_load.py's business). Nor a time window: each user runs one quiz
and its extras however long that takes, so a slow machine cannot leave a kind out."""

import asyncio
import math

from bench.bot_load import EXTRAS, KINDS, kinds_table, run, slowest_section, summary_table


def test_the_think_time_load_reports_every_kind_with_sane_numbers():
    # warm: the extras include `/explain`, whose first answer waits for the models; a fresh folder
    # encodes the whole catalog (two tracks) first, which can outlast a reply's 60 s on busy cores.
    row = asyncio.run(run(5, 2, 7, mode="think", arrive=1.0, duration=math.inf, rounds=1, think=(0.05, 0.2),
                          warm=True, extras=tuple((command, 1.0) for command, _ in EXTRAS)))
    assert row["failed_users"] == 0
    kinds = row["kinds"]
    assert set(kinds) == set(KINDS) | {"all"}
    for kind, k in kinds.items():
        assert k["count"] > 0 and k["acknowledged"] == k["count"] and k["rejected"] == 0, kind
        assert k["replied"] == k["count"], kind
        for name in ("ack", "reply"):
            p50, p95, p99 = (k[f"{name}_p{q}_ms"] for q in (50, 95, 99))
            assert 0 < p50 <= p95 <= p99 and math.isfinite(p99), (kind, name)
        assert k["reply_p50_ms"] >= k["ack_p50_ms"], kind
    # Every quiz click was sent after the previous reply landed: answers and Nexts pair up.
    assert kinds["answer"]["count"] >= kinds["next"]["count"] >= kinds["finish"]["count"] > 0
    assert kinds["all"]["count"] == sum(k["count"] for name, k in kinds.items() if name != "all")
    assert row["bot_cpu_s"] > 0 and 0 < row["cpu_ms_per_interaction"] and math.isfinite(row["cpu_ms_per_interaction"])
    assert math.isfinite(row["per_s"]) and row["per_s"] > 0
    text = summary_table([row]) + kinds_table([row])
    assert all(f"| {kind} |" in text for kind in KINDS)
    # The slowest /explain replies are traced: each matched to its stored attempt, whose pipeline
    # time is part of the reply time, with the answer's length and the gradings in flight.
    slowest = row["slowest"]
    assert 0 < len(slowest) <= kinds["/explain"]["count"]
    assert [g["reply_ms"] for g in slowest] == sorted((g["reply_ms"] for g in slowest), reverse=True)
    for g in slowest:
        assert g["pipeline_ms"] is not None and 0 < g["pipeline_ms"] <= g["reply_ms"], g
        assert g["words"] > 0 and g["in_flight"] >= 0
    assert len(slowest_section([row])) == len(slowest) + 5
