"""The async client every caller shares to talk to vLLM's OpenAI-compatible server.

One connection pool; bounded concurrency (enough for vLLM to batch); a readiness gate
checked at start and after failures, not on every request; a per-request timeout;
jittered retries on connection errors and 5xx only; a circuit breaker so callers fall
back at once instead of piling up; structured output validated with pydantic.

A request may carry a routing key (any string the caller picks: requests with the same key
should reach the same replica, whose prefix cache already holds what they share). It goes
out as the header vllm-router's consistent-hash policy reads first; a single vLLM ignores it.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
import time
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import quote

import httpx
import pydantic

from serving import metrics
from serving.breaker import BreakerState, CircuitBreaker
from serving.errors import (
    LLMBadOutput,
    LLMError,
    LLMRequestRejected,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
)
from serving.vllm_metrics import PrefixCacheStats, parse_prefix_cache_stats

Model = TypeVar("Model", bound=pydantic.BaseModel)

# Transport failures where the request may not have reached the model, or the server went
# away mid-request: worth another try against a server that may be back.
_CONNECTION_ERRORS = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)

# Printable ASCII but `%` (the escape itself) passes as it is: the encoding stays one-to-one.
_HEADER_SAFE = string.punctuation.replace("%", "")

# The first header vllm-router's consistent_hash policy looks at (src/policies/hash_key.rs,
# SESSION_HEADER_NAMES: x-session-id, then x-user-id, x-tenant-id, x-correlation-id,
# x-request-id, x-trace-id; then body fields; then a hash of the whole body).
ROUTING_KEY_HEADER = "X-Session-ID"


def routing_headers(routing_key: str | None) -> dict[str, str]:
    """The header for `routing_key`, or none. A header value must be visible ASCII, so other
    characters are percent-encoded: the router only needs the same key for the same input."""
    if not routing_key:
        return {}
    return {ROUTING_KEY_HEADER: quote(routing_key, safe=_HEADER_SAFE)}


def root_url(base_url: str) -> str:
    """Accept the server root or the OpenAI-style `/v1` URL; return the root."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


class LLMClient:
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        timeout_s: float,
        max_concurrency: int,
        max_retries: int,
        breaker_failures: int,
        breaker_cooldown_s: float,
        retry_backoff_s: float = 0.25,
        readiness_timeout_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        """`clock`: what the circuit breaker times its cool-down with (seconds; tests pass a
        clock they move by hand, so a busy machine cannot open or close the breaker early)."""
        self.root_url = root_url(base_url)
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.retry_backoff_s = retry_backoff_s
        self.readiness_timeout_s = min(readiness_timeout_s, timeout_s)
        self._max_concurrency = max_concurrency
        self._slots = asyncio.Semaphore(max_concurrency)
        self._breaker = CircuitBreaker(breaker_failures, breaker_cooldown_s, clock=clock)
        self._breaker.on_change = self._publish_breaker_state
        self._http: httpx.AsyncClient | None = None
        self._needs_readiness_check = True
        self._ready = False
        self._publish_breaker_state("closed")

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Open the pool and check readiness once. A server that is down is not an error
        here: calls fail fast with `LLMUnavailable` and the caller falls back."""
        if self._http is None:
            limits = httpx.Limits(max_connections=self._max_concurrency, max_keepalive_connections=self._max_concurrency)
            self._http = httpx.AsyncClient(base_url=self.root_url, limits=limits, timeout=self.timeout_s)
        await self.ensure_ready()

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> LLMClient:
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    # --- state -----------------------------------------------------------------------

    @property
    def breaker_state(self) -> BreakerState:
        return self._breaker.state

    @property
    def ready(self) -> bool:
        """The result of the last readiness check."""
        return self._ready

    async def ensure_ready(self) -> bool:
        """`/health` is 200 and the served name is listed in `/v1/models`."""
        http = self._client()
        try:
            health = await http.get("/health", timeout=self.readiness_timeout_s)
            models = await http.get("/v1/models", timeout=self.readiness_timeout_s) if health.status_code == 200 else None
            self._ready = (
                models is not None
                and models.status_code == 200
                and any(item.get("id") == self.model for item in models.json().get("data", []))
            )
        except (httpx.HTTPError, ValueError, AttributeError):
            self._ready = False
        self._needs_readiness_check = not self._ready
        return self._ready

    async def served_model(self) -> dict | None:
        """The `/v1/models` entry of the served name (vLLM lists its `root`, the weights it
        loaded, and `max_model_len`), or None when the server does not answer or lists no such
        name. Qualification keys its verdict by it."""
        try:
            reply = await self._client().get("/v1/models", timeout=self.readiness_timeout_s)
            entries = reply.json().get("data", []) if reply.status_code == 200 else []
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return next((entry for entry in entries if isinstance(entry, dict) and entry.get("id") == self.model), None)

    # --- calls -----------------------------------------------------------------------

    async def complete_json(
        self,
        messages: list[dict],
        schema: type[Model],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        routing_key: str | None = None,
    ) -> Model:
        """One chat completion constrained to `schema`'s JSON schema, validated into it.

        `routing_key`: requests that share it (and so share a prompt prefix) should reach the
        same replica behind a router; sent on every attempt."""
        payload = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": True},
            },
        }
        started = time.perf_counter()
        try:
            body = await self._guarded_post("/v1/chat/completions", payload, routing_headers(routing_key))
            result = _parse_structured(body, schema)
        except LLMError as error:
            if isinstance(error, LLMBadOutput):
                self._record_failure(error)
            metrics.REQUESTS.labels(self.model, type(error).kind).inc()
            raise
        finally:
            metrics.LATENCY.labels(self.model).observe(time.perf_counter() - started)
        self._breaker.record_success()
        metrics.REQUESTS.labels(self.model, "ok").inc()
        return result

    async def count_tokens(self, text: str) -> int:
        """Tokens in `text` by the served model's tokenizer (vLLM's `/tokenize`)."""
        body = await self._plain_post("/tokenize", {"model": self.model, "prompt": text, "add_special_tokens": False})
        return int(body["count"])

    async def count_chat_tokens(self, messages: list[dict], *, add_generation_prompt: bool = True) -> int:
        """Tokens of `messages` after the chat template, as the model sees them."""
        body = await self._plain_post(
            "/tokenize",
            {"model": self.model, "messages": messages, "add_generation_prompt": add_generation_prompt},
        )
        return int(body["count"])

    async def prefix_cache_stats(self) -> PrefixCacheStats:
        """vLLM's prefix-cache counters (tokens queried and hit) from its `/metrics`."""
        try:
            response = await self._client().get("/metrics", timeout=self.readiness_timeout_s)
            response.raise_for_status()
        except httpx.HTTPError as error:
            raise LLMUnavailable(f"cannot read vLLM metrics: {error}", kind="connection") from error
        return parse_prefix_cache_stats(response.text)

    # --- internals -------------------------------------------------------------------

    async def _guarded_post(self, path: str, payload: dict, headers: dict[str, str]) -> dict:
        """Breaker, readiness gate and concurrency slot around `_post_with_retries`."""
        if not self._breaker.allow():
            error = LLMUnavailable("LLM circuit breaker is open", kind="breaker_open")
            metrics.FAILURES.labels(self.model, error.kind).inc()
            raise error
        try:
            if self._needs_readiness_check and not await self.ensure_ready():
                raise LLMUnavailable(f"LLM server at {self.root_url} is not ready", kind="not_ready")
            async with self._slots:
                metrics.IN_FLIGHT.labels(self.model).inc()
                try:
                    return await self._post_with_retries(path, payload, headers)
                finally:
                    metrics.IN_FLIGHT.labels(self.model).dec()
        except (LLMUnavailable, LLMTimeout, LLMServerError) as error:
            self._record_failure(error)
            raise
        except LLMRequestRejected as error:
            # The server answered sensibly; it says nothing about its health.
            metrics.FAILURES.labels(self.model, error.kind).inc()
            self._breaker.release_trial()
            raise
        except asyncio.CancelledError:
            self._breaker.release_trial()
            raise

    async def _post_with_retries(self, path: str, payload: dict, headers: dict[str, str]) -> dict:
        http = self._client()
        for attempt in range(self.max_retries + 1):
            try:
                async with asyncio.timeout(self.timeout_s):
                    response = await http.post(path, json=payload, headers=headers)
            except (TimeoutError, httpx.TimeoutException) as error:
                # Not retried: a slow server given more work only gets slower.
                raise LLMTimeout(f"no reply within {self.timeout_s:g} s") from error
            except _CONNECTION_ERRORS as error:
                failure: LLMError = LLMUnavailable(f"connection failed: {error!r}", kind="connection")
            else:
                if response.status_code < 400:
                    try:
                        return response.json()
                    except ValueError as error:
                        raise LLMBadOutput("the server's reply is not JSON", kind="invalid_response") from error
                if response.status_code < 500:
                    raise LLMRequestRejected(
                        f"HTTP {response.status_code}: {response.text[:300]}", kind="rejected"
                    )
                failure = LLMServerError(f"HTTP {response.status_code}: {response.text[:300]}", kind="server_error")
            if attempt < self.max_retries:
                metrics.FAILURES.labels(self.model, failure.kind).inc()
                # Full jitter: concurrent callers retrying at once would hit a recovering server together.
                await asyncio.sleep(random.uniform(0, self.retry_backoff_s * 2**attempt))
        raise failure

    async def _plain_post(self, path: str, payload: dict) -> dict:
        """A helper call (tokenizer) without breaker or retries: not on the grading path."""
        try:
            response = await self._client().post(path, json=payload)
            response.raise_for_status()
            return response.json()
        except httpx.HTTPError as error:
            raise LLMUnavailable(f"{path} failed: {error}", kind="connection") from error

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            raise RuntimeError("LLMClient is not started: use `async with` or `await start()`")
        return self._http

    def _record_failure(self, error: LLMError) -> None:
        metrics.FAILURES.labels(self.model, error.kind).inc()
        self._breaker.record_failure()
        if isinstance(error, LLMUnavailable | LLMServerError):
            self._needs_readiness_check = True

    def _publish_breaker_state(self, state: BreakerState) -> None:
        metrics.BREAKER_STATE.labels(self.model).set(metrics.BREAKER_STATE_VALUES[state])


def _parse_structured(body: dict, schema: type[Model]) -> Model:
    try:
        choice = body["choices"][0]
        content = choice["message"]["content"]
        finish_reason = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError) as error:
        raise LLMBadOutput("the reply has no message content", kind="invalid_response") from error
    if finish_reason == "length":
        raise LLMBadOutput("the reply was cut off at max_tokens", kind="truncated")
    if not isinstance(content, str):
        raise LLMBadOutput("the reply has no message content", kind="invalid_response")
    try:
        data = json.loads(content)
    except ValueError as error:
        raise LLMBadOutput(f"the reply is not valid JSON: {content[:200]!r}", kind="invalid_json") from error
    try:
        return schema.model_validate(data)
    except pydantic.ValidationError as error:
        raise LLMBadOutput(f"the reply fails the schema: {error.error_count()} errors", kind="schema") from error
