"""The CPU judges off the event loop: worker processes that each load their model once (the
key-point model and the embedder it narrows long answers with, or the embedding judge's
embedder; and the follow-up reader, which reads interview follow-ups with the key-point model), like the picture and speech pools, at a lower CPU priority than the bot.

`GRADER_WORKERS` >= 1 (the bot's default): a grading runs in a worker, so its tokenising and
matrix work never holds the bot's GIL, and the OS runs quiz replies first. `GRADER_WORKERS=0`:
the judge runs in this process on a thread (the CLI, the benchmarks, the tests).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from coach.grading.models import Verdicts
from content import Bite

log = logging.getLogger(__name__)
_JUDGE = None  # the worker's own judge, loaded by `_load` or `_load_embedding`
_READER = None  # the worker's follow-up reader (coach.grading.followup_reader), or its thresholds until first used
_PRECISION = "auto"  # the worker's embedder's arithmetic, for the key-point model loaded later (retrieval.embedder)
_WARMING: threading.Thread | None = None  # the worker's warm-up (`_warm`), when it was asked for one
_READER_LOCK = threading.Lock()  # the warm-up and a follow-up may both want the reader's model first
NICE = 10  # below the bot: quiz replies first


def _worker_start(parent: int) -> None:
    from serving.worker_life import end_with_parent

    end_with_parent(parent)
    try:
        os.nice(NICE)
    except OSError:  # not permitted here: run at the bot's priority
        pass


def _load(thresholds, followup, embedder_options: dict, parent: int) -> None:
    global _JUDGE, _READER, _PRECISION
    _worker_start(parent)
    from coach.grading.followup_reader import FollowUpReader
    from coach.grading.point_judge import PointJudge
    from coach.grading.point_model import PointModel
    from retrieval import Embedder, split_sentences

    embedder = Embedder(**embedder_options)
    _PRECISION = embedder.precision
    _JUDGE = PointJudge(PointModel(precision=_PRECISION), split_sentences, thresholds, embedder=embedder)
    if followup is not None:
        _READER = FollowUpReader(_JUDGE.model, split_sentences, followup)


def _load_embedding(thresholds, corpus: list[str], followup, embedder_options: dict, warm: tuple[Bite, ...],
                    parent: int) -> None:
    global _JUDGE, _READER, _PRECISION, _WARMING
    _worker_start(parent)
    from coach.grading.embedding_judge import EmbeddingJudge
    from retrieval import Embedder, split_sentences

    embedder = Embedder(**embedder_options)
    _PRECISION = embedder.precision
    _JUDGE = EmbeddingJudge(embedder, split_sentences, thresholds, corpus)
    _READER = followup  # without a warm-up, the key-point model loads at the first follow-up
    if warm:
        _WARMING = threading.Thread(target=_warm, args=(warm,), name="grading-warm-up", daemon=True)
        _WARMING.start()


def _warm(bites: tuple[Bite, ...]) -> None:
    """On a thread beside the gradings (they share the embedder's lock, so a grading waits for
    one bite's encoding at most): every bite's reference vectors, then the follow-up reader's
    model. Built on first use instead, they made the first grading of each bite about twice as
    slow and the first follow-up wait seconds for the model (docs/grading.md, "Speed")."""
    for bite in bites:
        _JUDGE.warm(bite)
    if _READER is not None:
        _reader()


def _warmed() -> bool:
    """Whether this worker's warm-up is over (or it was given none)."""
    return _WARMING is None or not _WARMING.is_alive()


def _judge(bite: Bite, text: str) -> Verdicts:
    return _JUDGE.judge(bite, text)


def _judge_with_net(bite: Bite, text: str, net) -> Verdicts:
    return _JUDGE.judge(bite, text, net)


def _explains(bite: Bite, text: str) -> bool:
    return _JUDGE.explains(bite, text)


def _read_point(bite: Bite, point: int, text: str):
    return _reader().read(bite, point, text)


def _reader():
    """The follow-up reader, its model loaded on first use (or by the warm-up)."""
    global _READER
    with _READER_LOCK:
        if not hasattr(_READER, "read"):  # still the thresholds: load the reader's model now
            from coach.grading.followup_reader import FollowUpReader
            from coach.grading.point_model import PointModel
            from retrieval import split_sentences

            _READER = FollowUpReader(PointModel(precision=_PRECISION), split_sentences, _READER)
        return _READER


def _net(text: str):
    from coach.grading import injection

    return injection.check(text)


def _ready() -> bool:
    return _JUDGE is not None


class InlineFollowUpReader:
    """The follow-up reader in this process, on a thread."""

    def __init__(self, reader):
        self.reader = reader

    async def read_point(self, bite: Bite, point: int, text: str):
        return await asyncio.to_thread(self.reader.read, bite, point, text)


class InlinePointJudge:
    """The judge in this process, on a thread."""

    def __init__(self, judge):
        self.judge = judge

    async def verdicts(self, bite: Bite, text: str) -> Verdicts:
        return await asyncio.to_thread(self.judge.judge, bite, text)

    async def explains(self, bite: Bite, text: str) -> bool:
        return await asyncio.to_thread(self.judge.explains, bite, text)

    def close(self) -> None:
        pass


class _Pool:
    """A judge in worker processes (spawned, so no lock or thread of the bot is copied)."""

    def __init__(self, load, load_args: tuple, workers: int = 1):
        self._load, self._load_args, self._workers = load, load_args, workers
        self._pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self._workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=self._load, initargs=(*self._load_args, os.getpid()))
        for _ in range(self._workers):  # start the workers loading now, not at the first answer
            pool.submit(_ready)
        return pool

    async def _run(self, work, *args):
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, work, *args)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh, try once more
            log.warning("grading worker died; restarting the pool")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._start()
            return await loop.run_in_executor(self._pool, work, *args)

    async def net(self, text: str):
        """The injection net's reading (`injection.check`): its regexes over a long answer take
        tens of milliseconds that would otherwise hold the bot's event loop."""
        return await self._run(_net, text)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


class PooledPointJudge(_Pool):
    """The trained judge in worker processes (with the follow-up reader when `followup` is given)."""

    def __init__(self, thresholds, workers: int = 1, followup=None, embedder: dict | None = None):
        super().__init__(_load, (thresholds, followup, embedder or {}), workers)

    async def read_point(self, bite: Bite, point: int, text: str):
        return await self._run(_read_point, bite, point, text)

    async def verdicts(self, bite: Bite, text: str) -> Verdicts:
        return await self._run(_judge, bite, text)

    async def explains(self, bite: Bite, text: str) -> bool:
        return await self._run(_explains, bite, text)


class PooledEmbeddingJudge(_Pool):
    """The embedding judge in worker processes: `judge` as `EmbeddingJudge.judge`; with
    `followup`, the follow-up reader beside it (`read_point` as `FollowUpReader.read`)."""

    def __init__(self, thresholds, corpus: list[str], workers: int = 1, followup=None, embedder: dict | None = None,
                 warm: tuple[Bite, ...] = ()):
        """`embedder`: the worker's Embedder arguments (the bot's own `Embedder.options`); `warm`:
        the bites whose reference vectors each worker builds at start, beside its gradings."""
        super().__init__(_load_embedding, (thresholds, list(corpus), followup, embedder or {}, tuple(warm)), workers)

    async def warmed(self) -> bool:
        """Whether the worker that answers has finished its warm-up (or was given none)."""
        return await self._run(_warmed)

    async def judge(self, bite: Bite, text: str, net) -> Verdicts:
        return await self._run(_judge_with_net, bite, text, net)

    async def read_point(self, bite: Bite, point: int, text: str):
        return await self._run(_read_point, bite, point, text)
