"""vllm-router (the real Rust binary, from the LLM environment) in front of two local
OpenAI-compatible servers: the client's readiness check passes through it, and with the
consistent-hash policy every request carrying one routing key reaches one replica."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from serving.client import ROUTING_KEY_HEADER
from serving.local.router import POLICIES, LocalRouter, RouterConfig
from serving.local.server import REPO_ROOT, free_port
from serving.local.venv import ensure_llm_venv
from tests.serving.conftest import Verdict, make_client
from tests.serving.fake_llm import FakeLLMServer

MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "An answer."}]


def test_the_command_names_the_policy_the_workers_and_a_metrics_port_of_its_own():
    config = RouterConfig(("http://127.0.0.1:8001", "http://127.0.0.1:8002"), policy="cache_aware", port=8100)
    command = LocalRouter(Path("/venv/bin/python"), config).command()
    flag = lambda name: command[command.index(name) + 1]  # noqa: E731
    assert command[1:3] == ["-m", "vllm_router.launch_router"]
    assert flag("--policy") == "cache_aware" and flag("--port") == "8100"
    workers = command[command.index("--worker-urls") + 1 :][:2]
    assert workers == ["http://127.0.0.1:8001", "http://127.0.0.1:8002"]
    assert int(flag("--prometheus-port")) != 29000  # the default would clash between two routers
    assert set(POLICIES) == {"round_robin", "cache_aware", "consistent_hash"}
    with pytest.raises(ValueError):
        RouterConfig(())


@pytest.fixture
async def two_replicas():
    replicas = [await FakeLLMServer().start(), await FakeLLMServer().start()]
    yield replicas
    for replica in replicas:
        await replica.stop()


# On a bare machine the first call installs the LLM environment (minutes), as the vLLM fixture does.
@pytest.mark.timeout(1800)
async def test_one_routing_key_reaches_one_replica_through_the_real_router(two_replicas, tmp_path):
    python = await asyncio.to_thread(ensure_llm_venv, REPO_ROOT / ".venv-vllm", log=print)
    config = RouterConfig(
        tuple(f"http://127.0.0.1:{r.port}" for r in two_replicas), policy="consistent_hash", port=free_port()
    )
    router = LocalRouter(python, config, log_path=tmp_path / "router.log")
    # The replicas answer on this event loop: wait for the router off it.
    await asyncio.to_thread(router.__enter__)
    try:
        keys = [f"bite-{i}" for i in range(16)]
        async with make_client(config.base_url) as client:
            assert client.ready  # /health and /v1/models answered through the router
            for key in keys + keys[::-1] + keys:
                await client.complete_json(MESSAGES, Verdict, max_tokens=8, routing_key=key)
    finally:
        await asyncio.to_thread(router.stop)
    seen = [Counter(h[ROUTING_KEY_HEADER.lower()] for h in replica.headers) for replica in two_replicas]
    assert sum(sum(s.values()) for s in seen) == 48
    assert not set(seen[0]) & set(seen[1])  # no key was split between the replicas
    assert all(count == 3 for s in seen for count in s.values())
    assert seen[0] and seen[1]  # 16 keys on a hash ring of two replicas: both get some (1 - 2^-15)
