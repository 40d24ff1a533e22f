import pytest

from serving.vllm_metrics import PrefixCacheStats, counter_total, parse_prefix_cache_stats

# The shape vLLM exports (one series per engine), trimmed.
SAMPLE = """\
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="grader"} 2048.0
vllm:prefix_cache_queries_total{engine="1",model_name="grader"} 1000.0
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="grader"} 768.0
vllm:prefix_cache_hits_total{engine="1",model_name="grader"} 256.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="grader"} 0.0
"""


def test_counters_are_summed_over_engines():
    assert parse_prefix_cache_stats(SAMPLE) == PrefixCacheStats(hits=1024.0, queries=3048.0)


def test_difference_and_hit_rate():
    delta = PrefixCacheStats(1024, 3048) - PrefixCacheStats(0, 1048)
    assert delta == PrefixCacheStats(1024, 2000)
    assert delta.hit_rate == pytest.approx(0.512)
    assert PrefixCacheStats(0, 0).hit_rate == 0.0


def test_missing_counters_are_an_error():
    with pytest.raises(ValueError, match="prefix caching"):
        parse_prefix_cache_stats("# nothing here\n")


def test_a_counter_is_summed_over_its_labels_and_absent_is_zero():
    text = SAMPLE + """\
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="length",model_name="grader"} 5.0
vllm:request_success_total{engine="0",finished_reason="stop",model_name="grader"} 2.0
"""
    assert counter_total(text, "vllm:request_success") == 7.0
    assert counter_total(text, "vllm:prefix_cache_hits") == 1024.0
    assert counter_total(text, "vllm:num_requests_running") == 0.0  # a gauge, not a counter
    assert counter_total(SAMPLE, "vllm:request_success") == 0.0
