"""Where pictures are drawn: a small pool of worker processes.

matplotlib draws in Python and holds the GIL for the whole render (about a tenth to a
fifth of a second here), and a Figure is not safe to share between threads. In a worker
process, a render neither holds the bot's GIL nor shares any matplotlib state with
another render, and the event loop only awaits a future. The workers are started with
`spawn` (a fork would copy the bot's event loop, threads and sockets), run at a lower CPU
priority than the bot so a quiz click is never queued behind a render, and start warm:
the initializer imports matplotlib, registers the fonts and draws each picture once.

A render that times out, or a worker that dies (say, killed for memory), costs that one
picture: the pool is rebuilt and the caller gets `PictureError` and sends its text
without the picture. Renders still waiting in the discarded pool are drawn by the new one. `InlineRenderer` draws in a thread of this process instead: for the
one-shot command line, where starting a worker would only add a second of start-up.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from prometheus_client import Counter, Histogram

from bot.pictures import worker

log = logging.getLogger("coach.bot.pictures")

RENDER_SECONDS = Histogram("coach_picture_render_seconds", "Time to draw a picture, waiting included", ["kind"],
                           buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 20.0))
FAILURES = Counter("coach_picture_failures_total", "Pictures not drawn", ["kind", "reason"])
DEFAULT_NICE = 10


class PictureError(Exception):
    """The picture could not be drawn (timed out, the worker died, or a bug); send the text."""


def _kind(data) -> str:
    return type(data).__name__.removesuffix("Picture").lower() or "picture"


class PicturePool:
    def __init__(self, workers: int = 1, *, timeout_s: float = 20.0, nice: int = DEFAULT_NICE):
        self.workers = max(1, workers)
        self.timeout_s = timeout_s
        self.nice = nice
        self._executor: ProcessPoolExecutor | None = None
        self._warm: asyncio.Future | None = None
        self._closed = False

    def start(self) -> None:
        """Start the workers and warm them up in the background (returns at once)."""
        self._closed = False
        if self._executor is not None:
            return
        self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=worker.init, initargs=(self.nice, os.getpid()))
        loop = asyncio.get_running_loop()
        # One call per worker makes the executor start them all now, not on first use.
        pings = [loop.run_in_executor(self._executor, worker.ping) for _ in range(self.workers)]
        self._warm = asyncio.gather(*pings, return_exceptions=True)

    async def ready(self) -> list[int]:
        """Wait for the warm-up; returns the workers' pids (started if it was not)."""
        self.start()
        results = await self._warm
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise PictureError(f"picture workers failed to start: {errors[0]!r}")
        return sorted(set(results))

    async def render(self, data) -> bytes:
        """PNG bytes for `data`; PictureError when it cannot be drawn in `timeout_s`."""
        kind = _kind(data)
        started = time.perf_counter()
        for attempt in (1, 2):
            self.start()
            executor = self._executor
            future = asyncio.get_running_loop().run_in_executor(executor, worker.render, data)
            try:
                png = await asyncio.wait_for(future, self.timeout_s)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not future.cancelled() or (task is not None and task.cancelling()) or self._closed:
                    raise  # this render itself was cancelled, or the pool closed
                # It was still waiting in a pool discarded for another render (timed out, or
                # its worker died): not this picture's fault, so the new pool draws it.
                log.warning("picture dropped with a discarded pool", extra={"kind": kind, "attempt": attempt})
                if attempt == 2:
                    FAILURES.labels(kind, "worker_died").inc()
                    raise PictureError("the picture pool was restarted") from None
                continue
            except BrokenProcessPool:
                log.warning("picture worker died; restarting the pool", extra={"kind": kind, "attempt": attempt})
                self._discard(executor)
                if attempt == 2:
                    FAILURES.labels(kind, "worker_died").inc()
                    raise PictureError("the picture worker died") from None
                continue
            except TimeoutError:
                log.warning("picture timed out; restarting the pool", extra={"kind": kind, "seconds": self.timeout_s})
                self._discard(executor)  # the stuck render would hold its worker: replace it
                FAILURES.labels(kind, "timeout").inc()
                raise PictureError(f"drawing took longer than {self.timeout_s:g} s") from None
            except Exception as error:
                log.exception("picture failed", extra={"kind": kind})
                FAILURES.labels(kind, "error").inc()
                raise PictureError(f"{type(error).__name__}: {error}") from error
            RENDER_SECONDS.labels(kind).observe(time.perf_counter() - started)
            return png
        raise AssertionError("unreachable")

    async def run(self, function, *args):
        """Run a module-level function in a worker (the benchmark measures renders there)."""
        self.start()
        return await asyncio.get_running_loop().run_in_executor(self._executor, function, *args)

    def _discard(self, executor: ProcessPoolExecutor) -> None:
        """Replace `executor`, unless it has been replaced already (a render that failed with
        an old pool must not discard the new one the others have moved to)."""
        if executor is not self._executor:
            return
        self._executor = None
        self._warm = None
        if executor is None:
            return
        # A stuck worker never returns: end the processes, then let the executor wind down.
        for process in list(getattr(executor, "_processes", {}).values()):
            if process.is_alive():
                process.kill()
        executor.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Stop the workers (a render in progress finishes first)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if self._warm is not None:
            self._warm.cancel()
            self._warm = None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


class InlineRenderer:
    """The same interface, drawing in a thread of this process, one picture at a time."""

    def __init__(self, timeout_s: float = 20.0):
        self.timeout_s = timeout_s
        self._lock = threading.Lock()

    def start(self) -> None:
        pass

    async def ready(self) -> list[int]:
        return []

    def _render(self, data) -> bytes:
        from bot.pictures import render

        with self._lock:  # matplotlib's font caches are not made for two renders at once
            return render.render(data)

    async def render(self, data) -> bytes:
        try:
            return await asyncio.wait_for(asyncio.to_thread(self._render, data), self.timeout_s)
        except TimeoutError:
            FAILURES.labels(_kind(data), "timeout").inc()
            raise PictureError(f"drawing took longer than {self.timeout_s:g} s") from None
        except Exception as error:
            log.exception("picture failed", extra={"kind": _kind(data)})
            FAILURES.labels(_kind(data), "error").inc()
            raise PictureError(f"{type(error).__name__}: {error}") from error

    async def close(self) -> None:
        pass


def build_pictures(settings):
    """The renderer the settings ask for: `PICTURE_WORKERS` processes, or 0 for in-process."""
    if settings.picture_workers <= 0:
        return InlineRenderer(settings.picture_timeout_s)
    return PicturePool(settings.picture_workers, timeout_s=settings.picture_timeout_s)
