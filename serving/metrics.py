"""Prometheus metrics for LLM calls, on the default registry (the bot serves it).

Labelled by served model name, so a shadow grader's traffic is told apart from the live one.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

REQUESTS = Counter(
    "coach_llm_requests", "LLM completion calls by outcome.", ["model", "outcome"]
)
LATENCY = Histogram(
    "coach_llm_request_seconds",
    "Wall time of one completion call, retries included.",
    ["model"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120),
)
FAILURES = Counter(
    "coach_llm_failures", "Failed attempts by kind (one call may fail several attempts).", ["model", "kind"]
)
BREAKER_STATE = Gauge(
    "coach_llm_breaker_state", "Circuit breaker: 0 closed, 1 half-open, 2 open.", ["model"]
)
IN_FLIGHT = Gauge("coach_llm_in_flight", "Completion calls holding a concurrency slot.", ["model"])

BREAKER_STATE_VALUES = {"closed": 0, "half_open": 1, "open": 2}
