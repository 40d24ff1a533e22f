"""The bot's speech-to-text, started with the bot and closed with it.

`SPEECH_WORKERS` >= 1 (the default): `coach.voice.answer.speech_pool(settings)`, worker processes with
a cap, so a burst of voice answers keeps to its own processes and a full pool refuses at once
instead of queueing behind quiz clicks. `SPEECH_WORKERS=0`: the model in this process, loaded on
first use (tests and the console; no cap, so not for a busy bot).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Sequence

log = logging.getLogger("coach.bot.speech")


class PooledSpeech:
    """A `serving.speech.SpeechPool` behind an async start/close."""

    def __init__(self, pool):
        self.pool = pool
        self._starting: asyncio.Future | None = None

    def start(self) -> None:
        """Spawn the workers and load the model in the background (returns at once)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(asyncio.to_thread(self.pool.start))
            self._starting.add_done_callback(_log_start)

    async def ready(self) -> list[dict]:
        """Wait until every worker has its model loaded (starting them if needed)."""
        self.start()
        await asyncio.shield(self._starting)
        return self.pool.worker_info

    async def transcribe(self, data: bytes, hints: Sequence[str] = ()):
        return await self.pool.transcribe(data, hints)

    async def close(self) -> None:
        if self._starting is not None and not self._starting.done():
            await asyncio.gather(self._starting, return_exceptions=True)  # a half-started pool closes cleanly
        await asyncio.to_thread(self.pool.close)


def _log_start(task: asyncio.Future) -> None:
    if task.cancelled():
        return
    if task.exception() is not None:  # voice answers then fail politely; everything else works
        log.error("speech workers did not start", exc_info=task.exception())


class InlineSpeech:
    """The model in this process, loaded on first use; one transcription at a time."""

    def __init__(self, options):
        self.options = options
        self._transcriber = None
        self._lock = threading.Lock()

    def start(self) -> None:
        pass

    async def ready(self) -> list[dict]:
        await asyncio.to_thread(self._load)
        return []

    def _load(self):
        if self._transcriber is None:
            from serving.speech import Transcriber

            self._transcriber = Transcriber(self.options)
        return self._transcriber

    def _transcribe(self, data: bytes, hints: Sequence[str]):
        with self._lock:
            return self._load().transcribe(data, hints)

    async def transcribe(self, data: bytes, hints: Sequence[str] = ()):
        return await asyncio.to_thread(self._transcribe, data, list(hints))

    async def close(self) -> None:
        self._transcriber = None


class SharedSpeech:
    """Any object with `async transcribe(data, hints)` (a test's warm transcriber), owned by the
    caller: starting and closing the bot leave it alone."""

    def __init__(self, speech):
        self.speech = speech

    def start(self) -> None:
        pass

    async def ready(self) -> list[dict]:
        return []

    async def transcribe(self, data: bytes, hints: Sequence[str] = ()):
        return await self.speech.transcribe(data, hints)

    async def close(self) -> None:
        pass


def build_speech(settings):
    """What SPEECH_WORKERS asks for (not started: the bot starts it in `setup_hook`)."""
    from coach.voice.answer import speech_options, speech_pool

    if settings.speech_workers <= 0:
        return InlineSpeech(speech_options(settings))
    return PooledSpeech(speech_pool(settings))
