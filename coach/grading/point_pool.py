"""The trained judge off the event loop: worker processes that each load the key-point model
(and the embedder it narrows long answers with) once, like the picture and speech pools.

`GRADER_WORKERS` >= 1 (the bot's default): a grading runs in a worker, so its tokenising and
matrix work never holds the bot's GIL while quizzes are answered. `GRADER_WORKERS=0`: the judge
runs in this process on a thread (the CLI, the benchmarks, the tests).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from coach.grading.models import Verdicts
from content import Bite

log = logging.getLogger(__name__)
_JUDGE = None  # the worker's own judge, loaded by `_load`


def _load(thresholds) -> None:
    global _JUDGE
    from coach.grading.point_judge import PointJudge
    from coach.grading.point_model import PointModel
    from retrieval import Embedder, split_sentences

    _JUDGE = PointJudge(PointModel(), split_sentences, thresholds, embedder=Embedder())


def _judge(bite: Bite, text: str) -> Verdicts:
    return _JUDGE.judge(bite, text)


def _explains(bite: Bite, text: str) -> bool:
    return _JUDGE.explains(bite, text)


def _ready() -> bool:
    return _JUDGE is not None


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


class PooledPointJudge:
    """The judge in worker processes (spawned, so no lock or thread of the bot is copied)."""

    def __init__(self, thresholds, workers: int = 1):
        self._thresholds, self._workers = thresholds, workers
        self._pool = self._start()

    def _start(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self._workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_load, initargs=(self._thresholds,))
        for _ in range(self._workers):  # start the workers loading now, not at the first answer
            pool.submit(_ready)
        return pool

    async def verdicts(self, bite: Bite, text: str) -> Verdicts:
        return await self._run(_judge, bite, text)

    async def explains(self, bite: Bite, text: str) -> bool:
        return await self._run(_explains, bite, text)

    async def _run(self, work, bite: Bite, text: str):
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, work, bite, text)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh, try once more
            log.warning("grading worker died; restarting the pool")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._start()
            return await loop.run_in_executor(self._pool, work, bite, text)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
