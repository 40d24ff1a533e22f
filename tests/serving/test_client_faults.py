"""The client against a server that misbehaves on purpose: every failure becomes an `LLMError`
the caller can handle, quickly, and the breaker stops callers piling onto a sick server."""

import asyncio
import time

import pytest
from prometheus_client import REGISTRY

from serving.client import LLMClient
from serving.errors import (
    LLMBadOutput,
    LLMError,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
)
from serving.local.server import free_port
from tests.serving import fake_llm as fake
from tests.serving.conftest import Verdict, make_client

MESSAGES = [{"role": "system", "content": "Judge."}, {"role": "user", "content": "An answer."}]


def failures(kind: str) -> float:
    return REGISTRY.get_sample_value("coach_llm_failures_total", {"model": "grader", "kind": kind}) or 0.0


async def ask(client: LLMClient) -> Verdict:
    return await client.complete_json(MESSAGES, Verdict, max_tokens=32)


async def test_valid_reply_is_validated_and_request_asks_for_the_schema(fake_llm):
    fake_llm.then(fake.ok({"status": "partial"}))
    async with make_client(fake_llm.base_url) as client:
        verdict = await ask(client)
    assert verdict == Verdict(status="partial")
    sent = fake_llm.bodies[0]
    assert sent["model"] == "grader" and sent["max_tokens"] == 32 and sent["temperature"] == 0.0
    assert sent["messages"] == MESSAGES
    format_ = sent["response_format"]
    assert format_["type"] == "json_schema"
    assert format_["json_schema"]["strict"] is True
    assert format_["json_schema"]["schema"] == Verdict.model_json_schema()


async def test_a_500_is_retried_and_then_succeeds(fake_llm):
    fake_llm.then(fake.status(500), fake.status(503), fake.ok({"status": "covered"}))
    before = failures("server_error")
    async with make_client(fake_llm.base_url, max_retries=2) as client:
        assert (await ask(client)).status == "covered"
        assert client.breaker_state == "closed"
    assert fake_llm.count("/v1/chat/completions") == 3
    assert failures("server_error") == before + 2


async def test_persistent_500s_raise_server_error_after_the_retries(fake_llm):
    fake_llm.default = fake.status(500)
    async with make_client(fake_llm.base_url, max_retries=2) as client:
        with pytest.raises(LLMServerError):
            await ask(client)
    assert fake_llm.count("/v1/chat/completions") == 3


async def test_slow_reply_times_out_and_is_not_retried(fake_llm):
    fake_llm.default = fake.slow(60.0)
    async with make_client(fake_llm.base_url, timeout_s=0.3, max_retries=2) as client:
        started = time.perf_counter()
        with pytest.raises(LLMTimeout):
            await ask(client)
        # The server would answer after 60 s: ending well before that is the 0.3 s timeout at
        # work. The bound leaves a loaded machine plenty of room (speed is bench/'s business).
        assert time.perf_counter() - started < 20
    assert fake_llm.count("/v1/chat/completions") == 1


@pytest.mark.parametrize(
    ("behaviour", "kind"),
    [
        (fake.ok("{'status': covered"), "invalid_json"),
        (fake.ok({"status": "brilliant"}), "schema"),
        (fake.ok({"verdict": "covered"}), "schema"),
        (fake.ok('{"status": "cov', finish_reason="length"), "truncated"),
        (fake.raw(b"<html>bad gateway</html>"), "invalid_response"),
    ],
)
async def test_unusable_output_is_a_bad_output_error(fake_llm, behaviour, kind):
    fake_llm.then(behaviour)
    async with make_client(fake_llm.base_url) as client:
        with pytest.raises(LLMBadOutput) as caught:
            await ask(client)
    assert caught.value.kind == kind
    # Bad output is the model's fault, not the connection's: it is never retried.
    assert fake_llm.count("/v1/chat/completions") == 1


async def test_a_4xx_is_rejected_without_retry_and_does_not_trip_the_breaker(fake_llm):
    fake_llm.default = fake.status(400, "prompt too long")
    async with make_client(fake_llm.base_url, breaker_failures=2) as client:
        for _ in range(3):
            with pytest.raises(LLMRequestRejected, match="prompt too long"):
                await ask(client)
        assert client.breaker_state == "closed"
    assert fake_llm.count("/v1/chat/completions") == 3


async def test_connection_refused_at_start_is_not_fatal_and_calls_fail_fast():
    # Timeouts of a minute: a call that waited on the dead server instead of failing at once
    # would take at least that long. The bound leaves a loaded machine plenty of room.
    client = make_client(f"http://127.0.0.1:{free_port()}/v1", timeout_s=60.0, readiness_timeout_s=60.0)
    async with client:
        assert client.ready is False
        started = time.perf_counter()
        with pytest.raises(LLMUnavailable) as caught:
            await ask(client)
        assert time.perf_counter() - started < 20
    assert isinstance(caught.value, LLMError) and caught.value.kind == "not_ready"


async def test_server_dying_mid_request_is_retried(fake_llm):
    fake_llm.then(fake.die(), fake.ok({"status": "missing"}))
    async with make_client(fake_llm.base_url) as client:
        assert (await ask(client)).status == "missing"
    assert fake_llm.count("/v1/chat/completions") == 2


async def test_server_dying_on_every_attempt_is_unavailable(fake_llm):
    fake_llm.default = fake.die()
    async with make_client(fake_llm.base_url, max_retries=1) as client:
        with pytest.raises(LLMUnavailable) as caught:
            await ask(client)
    assert caught.value.kind == "connection"
    assert fake_llm.count("/v1/chat/completions") == 2


async def test_server_killed_between_requests_then_back(fake_llm):
    async with make_client(fake_llm.base_url, max_retries=0) as client:
        await ask(client)
        port = fake_llm.port
        await fake_llm.stop()
        with pytest.raises(LLMUnavailable):
            await ask(client)
        # Restarted on the same port: the readiness gate notices and traffic resumes.
        revived = fake.FakeLLMServer()
        revived._server = await asyncio.start_server(revived._serve, "127.0.0.1", port)
        revived.port = port
        try:
            assert (await ask(client)).status == "covered"
            assert revived.count("/health") == 1
        finally:
            await revived.stop()


async def test_not_ready_server_is_gated_until_it_is_ready(fake_llm):
    fake_llm.ready = False
    async with make_client(fake_llm.base_url, breaker_failures=10) as client:
        assert client.ready is False
        with pytest.raises(LLMUnavailable) as caught:
            await ask(client)
        assert caught.value.kind == "not_ready"
        assert fake_llm.count("/v1/chat/completions") == 0
        fake_llm.ready = True
        await ask(client)
        assert client.ready is True


async def test_served_name_missing_from_models_means_not_ready(fake_llm):
    fake_llm.models = ["some-other-model"]
    async with make_client(fake_llm.base_url) as client:
        assert client.ready is False
        assert await client.ensure_ready() is False
        fake_llm.models = ["some-other-model", "grader"]
        assert await client.ensure_ready() is True


async def test_readiness_is_not_checked_on_every_request(fake_llm):
    async with make_client(fake_llm.base_url) as client:
        for _ in range(5):
            await ask(client)
    assert fake_llm.count("/health") == 1
    assert fake_llm.count("/v1/chat/completions") == 5


async def test_breaker_opens_fails_fast_half_opens_and_closes(fake_llm, clock):
    fake_llm.default = fake.status(500)
    async with make_client(fake_llm.base_url, max_retries=0, breaker_failures=3, breaker_cooldown_s=0.5,
                           clock=clock) as client:
        for _ in range(3):
            with pytest.raises(LLMServerError):
                await ask(client)
        assert client.breaker_state == "open"
        assert REGISTRY.get_sample_value("coach_llm_breaker_state", {"model": "grader"}) == 2
        seen = list(fake_llm.paths)

        with pytest.raises(LLMUnavailable) as caught:
            await ask(client)
        assert caught.value.kind == "breaker_open"
        # Failing fast: the refused call touched nothing, not even the readiness check.
        assert fake_llm.paths == seen

        clock.advance(0.375)
        assert client.breaker_state == "open", "still cooling down"
        clock.advance(0.125)
        assert client.breaker_state == "half_open"
        fake_llm.default = fake.ok({"status": "covered"})
        assert (await ask(client)).status == "covered"
        assert client.breaker_state == "closed"
        assert REGISTRY.get_sample_value("coach_llm_breaker_state", {"model": "grader"}) == 0


async def test_failed_trial_in_half_open_reopens_the_breaker(fake_llm, clock):
    fake_llm.default = fake.status(500)
    async with make_client(fake_llm.base_url, max_retries=0, breaker_failures=2, breaker_cooldown_s=0.25,
                           clock=clock) as client:
        for _ in range(2):
            with pytest.raises(LLMServerError):
                await ask(client)
        clock.advance(0.25)
        assert client.breaker_state == "half_open"
        with pytest.raises(LLMServerError):  # the one trial call goes out and fails
            await ask(client)
        assert client.breaker_state == "open"
        sent = fake_llm.count("/v1/chat/completions")
        with pytest.raises(LLMUnavailable) as caught:
            await ask(client)
        assert caught.value.kind == "breaker_open" and fake_llm.count("/v1/chat/completions") == sent
        clock.advance(0.125)
        assert client.breaker_state == "open", "the failed trial started a whole new cool-down"
        clock.advance(0.125)
        assert client.breaker_state == "half_open"


async def test_half_open_lets_one_trial_through_and_fails_the_rest_fast(fake_llm, clock):
    fake_llm.default = fake.status(500)
    async with make_client(fake_llm.base_url, max_retries=0, breaker_failures=1, breaker_cooldown_s=0.125,
                           clock=clock) as client:
        with pytest.raises(LLMServerError):
            await ask(client)
        clock.advance(0.125)
        fake_llm.default = fake.slow(0.2, fake.ok({"status": "covered"}))
        results = await asyncio.gather(*(ask(client) for _ in range(4)), return_exceptions=True)
    assert sum(isinstance(r, Verdict) for r in results) == 1
    assert sum(isinstance(r, LLMUnavailable) and r.kind == "breaker_open" for r in results) == 3


async def test_repeated_bad_output_opens_the_breaker(fake_llm):
    fake_llm.default = fake.ok("not json")
    async with make_client(fake_llm.base_url, breaker_failures=3) as client:
        for _ in range(3):
            with pytest.raises(LLMBadOutput):
                await ask(client)
        assert client.breaker_state == "open"


async def test_concurrency_is_bounded_and_in_flight_returns_to_zero(fake_llm):
    fake_llm.default = fake.slow(0.1, fake.ok({"status": "covered"}))
    async with make_client(fake_llm.base_url, max_concurrency=3) as client:
        results = await asyncio.gather(*(ask(client) for _ in range(9)))
    assert len(results) == 9
    assert fake_llm.max_in_flight == 3
    assert REGISTRY.get_sample_value("coach_llm_in_flight", {"model": "grader"}) == 0


async def test_outcomes_and_latency_are_counted(fake_llm):
    def sample(name, **labels):
        return REGISTRY.get_sample_value(name, {"model": "grader", **labels}) or 0.0

    ok_before = sample("coach_llm_requests_total", outcome="ok")
    bad_before = sample("coach_llm_requests_total", outcome="bad_output")
    observed_before = sample("coach_llm_request_seconds_count")
    fake_llm.then(fake.ok({"status": "covered"}), fake.ok("nope"))
    async with make_client(fake_llm.base_url) as client:
        await ask(client)
        with pytest.raises(LLMBadOutput):
            await ask(client)
    assert sample("coach_llm_requests_total", outcome="ok") == ok_before + 1
    assert sample("coach_llm_requests_total", outcome="bad_output") == bad_before + 1
    assert sample("coach_llm_request_seconds_count") == observed_before + 2


async def test_calls_before_start_are_a_programming_error():
    client = make_client("http://127.0.0.1:9/v1")
    with pytest.raises(RuntimeError, match="not started"):
        await ask(client)
