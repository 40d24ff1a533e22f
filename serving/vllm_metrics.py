"""Read vLLM's prefix-cache counters from its Prometheus `/metrics` text."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

# Names as vLLM registers them (vllm/v1/metrics/loggers.py); counters get `_total` on export.
HITS = "vllm:prefix_cache_hits"
QUERIES = "vllm:prefix_cache_queries"


@dataclass(frozen=True)
class PrefixCacheStats:
    hits: float  # prompt tokens served from cached blocks
    queries: float  # prompt tokens looked up

    def __sub__(self, earlier: PrefixCacheStats) -> PrefixCacheStats:
        return PrefixCacheStats(self.hits - earlier.hits, self.queries - earlier.queries)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.queries if self.queries else 0.0


def parse_prefix_cache_stats(metrics_text: str) -> PrefixCacheStats:
    """Sum the counters over every engine label."""
    totals = {HITS: 0.0, QUERIES: 0.0}
    seen = set()
    for family in text_string_to_metric_families(metrics_text):
        if family.name in totals:
            for sample in family.samples:
                if sample.name == family.name + "_total":
                    totals[family.name] += sample.value
                    seen.add(family.name)
    if seen != set(totals):
        raise ValueError(f"vLLM metrics lack {sorted(set(totals) - seen)}: is prefix caching on?")
    return PrefixCacheStats(hits=totals[HITS], queries=totals[QUERIES])


def counter_total(metrics_text: str, name: str) -> float:
    """One counter (`name` as vLLM registers it, e.g. `vllm:request_success`) summed over
    every label; 0 when the server has not exported it yet."""
    return sum(
        sample.value
        for family in text_string_to_metric_families(metrics_text)
        if family.name == name
        for sample in family.samples
        if sample.name == name + "_total"
    )
