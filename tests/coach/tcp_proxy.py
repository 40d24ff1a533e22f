"""A TCP proxy the test owns, placed between the store and PostgreSQL, that can
cut every connection the moment the client sends a chosen statement."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass
class _Link:
    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    cut_on_reply: bool = False  # the trigger went through: cut as soon as the server answers it

    def close(self) -> None:
        for writer in (self.client, self.server):
            writer.transport.abort()


@dataclass
class CuttingProxy:
    upstream_host: str
    upstream_port: int
    trigger: bytes | None = None  # cut when the client sends bytes containing this
    forward_trigger: bool = False  # True: let the server run it, then cut before the reply
    cuts: int = 0
    links: list[_Link] = field(default_factory=list)
    port: int = 0

    async def start(self) -> "CuttingProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        for link in self.links:
            link.close()
        self._server.close()
        await self._server.wait_closed()

    def arm(self, trigger: bytes, *, forward: bool = False) -> None:
        self.trigger, self.forward_trigger = trigger, forward

    async def _accept(self, client_reader, client_writer) -> None:
        server_reader, server_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        link = _Link(client_writer, server_writer)
        self.links.append(link)
        await asyncio.gather(
            self._pump(client_reader, server_writer, link, upstream=True),
            self._pump(server_reader, client_writer, link, upstream=False),
            return_exceptions=True,
        )

    async def _pump(self, reader, writer, link: _Link, *, upstream: bool) -> None:
        try:
            while data := await reader.read(65536):
                if upstream and self.trigger and self.trigger in data:
                    self.trigger = None
                    self.cuts += 1
                    if self.forward_trigger:
                        link.cut_on_reply = True
                        writer.write(data)
                        await writer.drain()
                        continue
                    link.close()
                    return
                if not upstream and link.cut_on_reply:
                    link.close()  # the server has executed it; the client never hears back
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()
