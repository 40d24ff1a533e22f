"""The router and serving benchmarks' own logic, without a server: the daily-post mix they send,
the part of a prompt two answers on one bite share, and the report."""

from collections import Counter

import pytest

from bench import collect
from bench.router import Counters, daily_post_mix, percentile, render, round_orders, summarize
from bench.serving import grading_prompts, shared_part
from coach.grading.prompt import STATIC_PREFIX


def test_the_daily_post_mix_is_mostly_one_bite_and_the_rest_spread():
    requests = daily_post_mix(32, 0.6, 2, seed=17)
    bites = Counter(r.bite_id for r in requests)
    (hot, hot_count), *others = bites.most_common()
    assert len(requests) == 32 and hot_count == round(32 * 0.6)
    assert all(r.hot == (r.bite_id == hot) for r in requests)
    assert others and all(count <= 2 for _, count in others)
    assert len({r.answer for r in requests if r.hot}) > 1  # different people's answers
    # The grader's own prompt: the static prefix first, the bite and the fenced answer after.
    messages = requests[0].build()
    assert messages[0]["content"] == STATIC_PREFIX and requests[0].answer in messages[-1]["content"]
    assert messages[-1]["content"] != requests[0].build()[-1]["content"]  # a fresh fence per call


def test_every_policy_gets_the_same_order_and_another_seed_another():
    first = [(r.bite_id, r.answer) for r in daily_post_mix(32, 0.6, 2, seed=17)]
    assert first == [(r.bite_id, r.answer) for r in daily_post_mix(32, 0.6, 2, seed=17)]
    assert first != [(r.bite_id, r.answer) for r in daily_post_mix(32, 0.6, 2, seed=18)]


def test_too_many_requests_for_the_answers_there_are_is_an_error():
    with pytest.raises(SystemExit):
        daily_post_mix(10_000, 0.1, 2, seed=1)


def test_a_same_bite_answer_shares_the_prefix_and_the_bite_up_to_the_answer():
    prompt = grading_prompts(1)[0]
    one, two = prompt.build(), prompt.build()
    shared = shared_part(one, prompt.context)
    assert shared == shared_part(two, prompt.context)  # identical for two gradings of that bite
    assert one[-1]["content"].startswith(shared[-1]["content"]) and shared[-1]["content"] == prompt.context
    with pytest.raises(ValueError):
        shared_part(one, "another bite's context")


def run(policy, a, b, ttfts, decisions=None):
    return {"policy": policy, "wall_s": 30.0, "replicas": [a, b], "decisions": decisions or {},
            "results": [{"ttft_s": t, "latency_s": t + 2, "hot": i % 2 == 0} for i, t in enumerate(ttfts)]}


def test_rounds_are_summed_per_replica_and_times_pooled():
    runs = [run("consistent_hash", Counters(900, 1200, 6), Counters(100, 800, 2), [1.0, 2.0, 3.0, 4.0],
                {"missing_tokens": 8}),
            run("consistent_hash", Counters(800, 1000, 5), Counters(200, 1000, 3), [5.0, 6.0, 7.0, 8.0],
                {"missing_tokens": 8})]
    summary = summarize("consistent_hash", runs)
    assert summary["replicas"] == [Counters(1700, 2200, 11), Counters(300, 1800, 5)]
    assert summary["total"] == Counters(2000, 4000, 16) and summary["total"].hit_rate == 0.5
    assert summary["ttft_p50"] == 4.5 and summary["ttft_p95"] == 8.0
    assert summary["hot_p50"] == 4.0 and summary["other_p50"] == 5.0  # 1, 3, 5, 7 vs 2, 4, 6, 8
    assert summary["round_p50"] == [2.5, 6.5] and summary["round_split"] == ["6 / 2", "5 / 3"]
    assert summary["decisions"] == {"missing_tokens": 16}


def test_every_policy_takes_each_place_in_the_order():
    orders = round_orders(["a", "b", "c"], 3)
    assert orders == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    assert all(sorted(order) == ["a", "b", "c"] for order in orders)


def test_the_report_puts_every_policy_side_by_side():
    requests = daily_post_mix(8, 0.5, 2, seed=3)
    results = [
        summarize("round_robin", [run("round_robin", Counters(500, 1000, 4), Counters(400, 1000, 4), [1.5, 1.5, 4.0])]),
        summarize("consistent_hash", [run("consistent_hash", Counters(900, 1200, 6), Counters(100, 800, 2), [2.0])]),
    ]
    host = {"nproc": 2, "cpu": "x", "ram_gib": 1.0, "load_start": (1.0,), "load_end": (2.0,), "cores": [0, 1],
            "router_version": "0.1.17"}
    args = type("Args", (), {"max_tokens": 16, "concurrency": 4})()
    report = render("cmd", "today", host, requests, results, args, 600.0, 60.0, [["round_robin", "consistent_hash"]])
    rows = [line for line in report.splitlines() if line.startswith("| round robin") or line.startswith("| consistent")]
    assert rows[0].startswith("| round robin | 4 / 4 | 50% / 40% | 45% (900 of 2000) | 1.50 | 4.00")
    assert rows[1].startswith("| consistent hashing | 6 / 2 | 75% / 12% | 50% (1000 of 2000)")


def test_percentile_is_nearest_rank():
    assert percentile([5, 1, 4, 2, 3], 0.5) == 3
    assert percentile(list(range(1, 21)), 0.95) == 19
    assert percentile([7.0], 0.95) == 7.0


def test_the_router_section_is_collected_beside_serving():
    assert collect.ORDER.index("router") == collect.ORDER.index("serving") + 1
