"""Serving benchmark against an OpenAI-compatible vLLM (not part of `make test`).

    .venv/bin/python -m bench.serving --base-url http://127.0.0.1:8000/v1 [--out docs/bench/serving.md]

Side by side in one run, on real grading prompts (the grader's own prompt builder, the
labelled dev answers, the shipped inference track):
  (a) the same N prompts at concurrency 1, 4 and 16: output tokens/s, requests/s, p50/p95
      latency (the continuous-batching gain);
  (b) time to first token in three prefix cases, with the hit rate from vLLM's /metrics
      counters: cold (a nonce at the start of the system prompt: nothing cached), static
      prefix warm (a nonce at the start of the user turn: a bite not seen lately), and static
      prefix and bite warm (another answer on a bite just graded: the daily-post case);
  (c) the share of each prompt's tokens that is the shared static prefix.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import httpx

from bench.machine import cpu_model
from coach.grading.llm_judge import LLMJudge, verdict_schema
from coach.grading.prompt import bite_context
from content import default_catalog
from serving.client import LLMClient
from serving.vllm_metrics import PrefixCacheStats
from bench.collect import publish

REPO = Path(__file__).resolve().parent.parent
DEV_ANSWERS = REPO / "tests" / "data" / "grading_blind_dev.jsonl"


@dataclass
class Prompt:
    bite_id: str
    build: object  # () -> messages; a fresh answer fence on every call, as the grader does
    schema: dict
    full_verdict: str  # the compact JSON a capable judge would return, quoting the answer
    context: str = ""  # the bite's part of the prompt (what two answers on one bite share after the prefix)


def full_verdict(answer: str, points: int) -> str:
    """Every key point judged with a quote of about twenty words from the answer: the output
    size to plan for on the GPU (the 135M plumbing model is cut off long before that)."""
    words = answer.split()
    quotes = [" ".join(words[i * 20 : i * 20 + 20]) for i in range(points)]
    verdict = {
        "key_points": [{"status": "covered", "quote": quote} for quote in quotes],
        "purpose": True,
        "purpose_quote": quotes[0] if quotes else "",
        "mechanism": True,
        "mechanism_quote": quotes[0] if quotes else "",
        "on_topic": True,
        "other_concept": "",
        "red_flag": "no",
        "red_flag_quote": "",
        "injection": False,
    }
    return json.dumps(verdict, separators=(",", ":"))


@dataclass
class Result:
    latency_s: float
    prompt_tokens: int
    output_tokens: int
    finish_reason: str


def grading_prompts(count: int) -> list[Prompt]:
    """`count` (bite, answer) pairs: labelled dev answers first, then bites' model answers."""
    catalog = default_catalog()
    judge = LLMJudge(None, max_tokens=0)
    pairs: list[tuple[str, str]] = []
    if DEV_ANSWERS.exists():
        for line in DEV_ANSWERS.read_text().splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("bite_id") in catalog.bites and row.get("answer"):
                pairs.append((row["bite_id"], row["answer"]))
    pairs += [(bite.id, bite.model_answer) for bite in catalog.bites.values()]
    prompts = []
    for bite_id, answer in pairs[:count]:
        bite = catalog.bites[bite_id]
        schema = verdict_schema(len(bite.key_points)).model_json_schema()
        prompts.append(
            Prompt(bite_id, lambda b=bite, a=answer: judge.messages(b, a), schema,
                   full_verdict(answer, len(bite.key_points)), bite_context(bite))
        )
    if len(prompts) < count:
        raise SystemExit(f"only {len(prompts)} grading prompts available, wanted {count}")
    return prompts


def payload(model: str, messages: list[dict], schema: dict, max_tokens: int, **extra) -> dict:
    return {
        "model": model,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "response_format": {"type": "json_schema", "json_schema": {"name": "Verdicts", "schema": schema, "strict": True}},
        **extra,
    }


async def complete(http: httpx.AsyncClient, body: dict) -> Result:
    started = time.perf_counter()
    response = await http.post("/v1/chat/completions", json=body)
    response.raise_for_status()
    data = response.json()
    return Result(
        time.perf_counter() - started,
        data["usage"]["prompt_tokens"],
        data["usage"]["completion_tokens"],
        data["choices"][0]["finish_reason"],
    )


async def run_level(http, model, prompts, concurrency, max_tokens) -> dict:
    slots = asyncio.Semaphore(concurrency)

    async def one(prompt: Prompt) -> Result:
        async with slots:
            return await complete(http, payload(model, prompt.build(), prompt.schema, max_tokens))

    started = time.perf_counter()
    results = await asyncio.gather(*(one(p) for p in prompts))
    wall = time.perf_counter() - started
    latencies = sorted(r.latency_s for r in results)
    output_tokens = sum(r.output_tokens for r in results)
    return {
        "concurrency": concurrency,
        "requests": len(results),
        "wall_s": wall,
        "output_tokens": output_tokens,
        "tokens_per_s": output_tokens / wall,
        "requests_per_s": len(results) / wall,
        "p50_s": statistics.median(latencies),
        "p95_s": latencies[max(0, round(0.95 * len(latencies)) - 1)],
        "finish": {reason: sum(r.finish_reason == reason for r in results) for reason in {r.finish_reason for r in results}},
        "prompt_tokens": [r.prompt_tokens for r in results],
        "outputs": [r.output_tokens for r in results],
    }


async def time_to_first_token(http, model, messages, schema) -> float:
    body = payload(model, messages, schema, 1, stream=True)
    started = time.perf_counter()
    async with http.stream("POST", "/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[len("data: "):])["choices"][0].get("delta", {})
            if delta.get("content"):
                return time.perf_counter() - started
    raise RuntimeError("the stream ended without a token")


def shared_part(messages: list[dict], context: str) -> list[dict]:
    """A grading prompt up to where two answers on the same bite part: the static prefix and the
    bite's context, which opens the user turn (the fenced answer follows it)."""
    user = messages[-1]["content"]
    if not user.startswith(context):
        raise ValueError("the user turn does not open with the bite's context: has the prompt layout changed?")
    return [*messages[:-1], dict(messages[-1], content=context)]


def with_nonce(messages: list[dict], index: int) -> list[dict]:
    """Put a never-seen nonce at the start of message `index`: no cached block matches from there on."""
    changed = dict(messages[index], content=f"[run {secrets.token_hex(8)}]\n" + messages[index]["content"])
    return [*messages[:index], changed, *messages[index + 1 :]]


TTFT_CASES = ("cold", "warm", "bite")


async def measure_ttft(http, client: LLMClient, model, prompts: list[Prompt]) -> dict:
    """The same prompts in three cases, one request at a time:
    - cold: a nonce at the start of the system prompt, so nothing can come from the cache;
    - warm: a nonce at the start of the user turn, so only the static prefix can (a grading
      whose bite has not been seen lately);
    - bite: no nonce, right after another answer on the same bite was graded (not timed), so
      the static prefix and the bite are both cached and only the answer is new; its fresh
      random fence makes everything from the answer on differ (the daily-post case).
    The hit rate counts the timed requests only."""
    out = {}
    for case in TTFT_CASES:
        times, stats = [], PrefixCacheStats(0.0, 0.0)
        for prompt in prompts:
            if case == "bite":
                await complete(http, payload(model, prompt.build(), prompt.schema, 1))
                messages = prompt.build()
            else:
                messages = with_nonce(prompt.build(), 0 if case == "cold" else 1)
            before = await client.prefix_cache_stats()
            times.append(await time_to_first_token(http, model, messages, prompt.schema))
            delta = await client.prefix_cache_stats() - before
            stats = PrefixCacheStats(stats.hits + delta.hits, stats.queries + delta.queries)
        out[case] = {"median_s": statistics.median(times), "times_s": times, "hit_rate": stats.hit_rate,
                     "hits": stats.hits, "queries": stats.queries}
    return out


def machine() -> dict:
    model = cpu_model()
    mem_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")))
    return {"nproc": os.cpu_count(), "cpu": model, "ram_gib": round(mem_kib / 2**20, 1), "load": os.getloadavg()}


def render(command: str, when: str, host: dict, levels: list[dict], ttft: dict, shares: dict, max_tokens: int) -> str:
    base = levels[0]["tokens_per_s"]
    rows = "\n".join(
        f"| {lv['concurrency']} | {lv['requests']} | {lv['wall_s']:.1f} | {lv['output_tokens']} | {lv['tokens_per_s']:.1f} "
        f"| {lv['tokens_per_s'] / base:.1f}× | {lv['requests_per_s']:.2f} | {lv['p50_s']:.1f} | {lv['p95_s']:.1f} "
        f"| {', '.join(f'{k} {v}' for k, v in sorted(lv['finish'].items()))} |"
        for lv in levels
    )
    warm, cold, bite = ttft["warm"], ttft["cold"], ttft["bite"]
    labels = {"cold": "cold (nothing cached)", "warm": "static prefix warm", "bite": "static prefix and bite warm (same bite)"}
    ttft_rows = "\n".join(
        f"| {labels[case]} | {ttft[case]['median_s']:.2f} | {', '.join(f'{t:.2f}' for t in ttft[case]['times_s'])} "
        f"| {ttft[case]['hit_rate']:.0%} ({ttft[case]['hits']:.0f} of {ttft[case]['queries']:.0f}) |"
        for case in TTFT_CASES
    )
    return f"""## Serving (vLLM): batching, prefix caching, prompt shape

Command: `{command}`
Date: {when}. Machine: {host['nproc']} cores ({host['cpu']}), {host['ram_gib']} GiB RAM, no GPU;
load average at start {host['load_start'][0]:.1f} and at end {host['load_end'][0]:.1f} (other work shares these cores, so absolute
numbers are noisy; the ratios within one run are the point). Server: `coach llm serve` (vLLM CPU, SmolLM2-135M-Instruct
in float32, prefix caching on, max 16 sequences). Prompts: the grader's own prompt builder
(`coach.grading.llm_judge.LLMJudge.messages`) over labelled dev answers, JSON-schema structured output,
`max_tokens={max_tokens}`, temperature 0.

### (a) Continuous batching: the same {levels[0]['requests']} grading prompts at rising concurrency

Before the timed runs every prompt was sent once, so in each run the static prefix and the bite are warm and
only the freshly fenced answer is new, as for a real grading.

| concurrency | requests | wall s | output tokens | output tokens/s | vs 1 | requests/s | p50 latency s | p95 latency s | finish |
|---|---|---|---|---|---|---|---|---|---|
{rows}

### (b) Prefix caching: time to first token, cold vs static prefix warm vs static prefix and bite warm

Streamed requests, one at a time, the same grading prompts in every case. Cold: a random nonce at the start of the
system prompt, so nothing can come from the cache. Static prefix warm: the nonce at the start of the user turn, so
only the static prefix can (a bite not seen lately). Static prefix and bite warm: another answer on the same bite was
graded just before (not timed), so only the answer is new; its fresh random fence makes everything from the answer on
differ (the daily-post case, where most answers are about one bite). Hit rates count the timed requests only.

| case | median TTFT s | runs (s) | prefix-cache hit rate (tokens) |
|---|---|---|---|
{ttft_rows}

Static prefix warm is {cold['median_s'] / warm['median_s']:.1f}× faster to the first token than cold; static prefix and bite warm
is {cold['median_s'] / bite['median_s']:.1f}× faster than cold and {warm['median_s'] / bite['median_s']:.2f}× faster than static prefix warm. vLLM caches only
full blocks (128 tokens on CPU, 16 on GPU): of the {shares['bite_prefix_tokens']} tokens a same-bite answer shares, {shares['bite_prefix_tokens'] // 128 * 128} can hit
here, against {shares['prefix_tokens'] // 128 * 128} of the {shares['prefix_tokens']} static-prefix tokens.

### (c) Prompt shape: how much of each grading prompt is the shared prefix

| | tokens |
|---|---|
| static prefix (system prompt + rubric, chat-templated) | {shares['prefix_tokens']} ({shares['prefix_tokens'] // 128} full CPU blocks of 128) |
| static prefix + bite (what another answer on the same bite shares), min / median / max | {shares['bite_min']} / {shares['bite_prefix_tokens']} / {shares['bite_max']} |
| whole prompt, min / median / max | {shares['min']} / {shares['median']:.0f} / {shares['max']} |
| prefix share of the prompt, min / median / max | {shares['share_min']:.0%} / {shares['share_median']:.0%} / {shares['share_max']:.0%} |
| output tokens per grading in this run (capped by `max_tokens`), median | {shares['output_median']:.0f} |
| a complete verdict (every key point quoted, ~20 words each), min / median / max | {shares['verdict_min']} / {shares['verdict_median']:.0f} / {shares['verdict_max']} |
"""


async def main_async(args) -> str:
    host = machine()
    host["load_start"] = host["load"]
    prompts = grading_prompts(args.prompts)
    limits = httpx.Limits(max_connections=64)
    async with (
        LLMClient(args.base_url, args.model, timeout_s=args.timeout, max_concurrency=64, max_retries=0,
                  breaker_failures=1000, breaker_cooldown_s=1.0) as client,
        httpx.AsyncClient(base_url=client.root_url, timeout=args.timeout, limits=limits) as http,
    ):
        if not client.ready:
            raise SystemExit(f"{args.base_url} is not ready (is `coach llm serve` running?)")
        print("warming the cache with every prompt once", flush=True)
        await asyncio.gather(*(complete(http, payload(args.model, p.build(), p.schema, 1)) for p in prompts))
        levels = []
        for concurrency in args.concurrency:
            print(f"(a) concurrency {concurrency}", flush=True)
            levels.append(await run_level(http, args.model, prompts, concurrency, args.max_tokens))
            print(json.dumps({k: v for k, v in levels[-1].items() if k not in ("prompt_tokens", "outputs")}), flush=True)
        print("(b) time to first token", flush=True)
        ttft = await measure_ttft(http, client, args.model, prompts[: args.ttft_repeats])
        print(json.dumps(ttft), flush=True)
        prefix_tokens = await client.count_chat_tokens(prompts[0].build()[:1], add_generation_prompt=False)
        bite_tokens = [await client.count_chat_tokens(shared_part(p.build(), p.context), add_generation_prompt=False)
                       for p in prompts]
        verdict_tokens = [await client.count_tokens(p.full_verdict) for p in prompts]
    totals = levels[0]["prompt_tokens"]
    share = [prefix_tokens / t for t in totals]
    shares = {
        "prefix_tokens": prefix_tokens, "min": min(totals), "median": statistics.median(totals), "max": max(totals),
        "share_min": min(share), "share_median": statistics.median(share), "share_max": max(share),
        "output_median": statistics.median(levels[0]["outputs"]),
        "verdict_min": min(verdict_tokens), "verdict_median": statistics.median(verdict_tokens),
        "verdict_max": max(verdict_tokens),
        "bite_prefix_tokens": round(statistics.median(bite_tokens)), "bite_min": min(bite_tokens),
        "bite_max": max(bite_tokens),
    }
    host["load_end"] = os.getloadavg()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = ".venv/bin/python -m bench.serving " + " ".join(args.argv)
    return render(command, when, host, levels, ttft, shares, args.max_tokens)


def main(argv: list[str] | None = None) -> None:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", default="grader")
    parser.add_argument("--prompts", type=int, default=32)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--ttft-repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "bench" / "serving.md")
    args = parser.parse_args(argv)
    args.argv = argv
    report = asyncio.run(main_async(args))
    publish(report, args.out)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
