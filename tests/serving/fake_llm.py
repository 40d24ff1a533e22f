"""A small OpenAI-compatible HTTP server that misbehaves on purpose, on raw asyncio streams so
a test controls every byte (and can drop the connection half-way through a reply).

Each chat-completion request takes the next behaviour from `script` (or `default` when the
script is empty). `/health` and `/v1/models` follow `ready` and `models`.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

Behaviour = Callable[["Exchange"], Awaitable[None]]


@dataclass
class Exchange:
    path: str
    body: dict | None
    writer: asyncio.StreamWriter
    headers: dict[str, str] = field(default_factory=dict)  # names lower-cased, as they arrived

    async def respond(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
        head = (
            f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: keep-alive\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        await self.writer.drain()


def completion_body(content: str, finish_reason: str = "stop") -> bytes:
    return json.dumps(
        {
            "id": "cmpl-fake",
            "object": "chat.completion",
            "model": "grader",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    ).encode()


# --- behaviours ---------------------------------------------------------------------------


def ok(content: dict | str, finish_reason: str = "stop") -> Behaviour:
    text = content if isinstance(content, str) else json.dumps(content)

    async def behave(exchange: Exchange) -> None:
        await exchange.respond(200, completion_body(text, finish_reason))

    return behave


def answering(reply: Callable[[dict], dict]) -> Behaviour:
    """A 200 whose content is `reply(request body)`: a server that reads what it was asked."""

    async def behave(exchange: Exchange) -> None:
        await exchange.respond(200, completion_body(json.dumps(reply(exchange.body or {}))))

    return behave


def status(code: int, message: str = "boom") -> Behaviour:
    async def behave(exchange: Exchange) -> None:
        await exchange.respond(code, json.dumps({"error": {"message": message}}).encode())

    return behave


def slow(seconds: float, then: Behaviour | None = None) -> Behaviour:
    async def behave(exchange: Exchange) -> None:
        await asyncio.sleep(seconds)
        await (then or ok({"status": "covered"}))(exchange)

    return behave


def die() -> Behaviour:
    """Start a reply, then drop the connection: the server crashed mid-request."""

    async def behave(exchange: Exchange) -> None:
        exchange.writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"id\":")
        await exchange.writer.drain()
        exchange.writer.transport.abort()

    return behave


def raw(payload: bytes) -> Behaviour:
    """A 200 whose body is not JSON at all (a proxy's error page, say)."""

    async def behave(exchange: Exchange) -> None:
        await exchange.respond(200, payload, "text/html")

    return behave


@dataclass
class FakeLLMServer:
    model: str = "grader"
    ready: bool = True
    models: list[str] | None = None  # None: list `model`
    root: str | None = None  # the weights vLLM says it loaded, listed with each model when set
    default: Behaviour = field(default_factory=lambda: ok({"status": "covered"}))
    script: deque = field(default_factory=deque)
    paths: list[str] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)  # per chat completion, like `bodies`
    in_flight: int = 0
    max_in_flight: int = 0
    port: int = 0
    _writers: list = field(default_factory=list)
    _server: asyncio.Server | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def then(self, *behaviours: Behaviour) -> FakeLLMServer:
        self.script.extend(behaviours)
        return self

    def count(self, path: str) -> int:
        return self.paths.count(path)

    async def start(self) -> FakeLLMServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        # Handlers still sleeping (slow replies) hold their connections; cut them, don't wait.
        for writer in self._writers:
            writer.transport.abort()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.append(writer)
        try:
            while not writer.is_closing():
                request_line = await reader.readline()
                if not request_line:
                    break
                _method, path, _version = request_line.decode().split(" ", 2)
                headers = {}
                while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", 0))
                raw_body = await reader.readexactly(length) if length else b""
                body = json.loads(raw_body) if raw_body else None
                await self._dispatch(Exchange(path, body, writer, headers))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _dispatch(self, exchange: Exchange) -> None:
        self.paths.append(exchange.path)
        if exchange.path == "/health":
            await exchange.respond(200 if self.ready else 503, b"")
        elif exchange.path == "/v1/models":
            names = [self.model] if self.models is None else self.models
            entries = [{"id": n} | ({"root": self.root} if self.root else {}) for n in names]
            await exchange.respond(200, json.dumps({"object": "list", "data": entries}).encode())
        elif exchange.path == "/v1/chat/completions":
            self.bodies.append(exchange.body or {})
            self.headers.append(exchange.headers)
            behaviour = self.script.popleft() if self.script else self.default
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                await behaviour(exchange)
            finally:
                self.in_flight -= 1
        else:
            await exchange.respond(404, b"{}")
