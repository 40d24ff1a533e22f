"""Build the coach's services once from Settings: Store, Coach, TopicFinder, Grader, LLMClient,
and the picture renderer.

The embedding model and the grader load lazily in a worker thread (they take seconds),
so the bot can acknowledge interactions while they load; until they are ready,
retrieval and grading wait for them rather than fail.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Callable

from coach.config import Settings
from coach.grading.admission import GradingQueue
from coach.grading.cooldown import GradingCooldown
from coach.grading.drafts import AnswerDrafts
from coach.timeutil import utcnow
from content import Catalog, default_catalog, load_catalog

if TYPE_CHECKING:  # typed, so a handler calling a method a service lacks is caught by a type checker
    from bot.pictures.pool import InlineRenderer, PicturePool
    from bot.speech import InlineSpeech, PooledSpeech, SharedSpeech
    from coach.engine import Coach
    from coach.grading.pipeline import Grader
    from coach.store import Store
    from coach.topics import TopicFinder
    from serving.client import LLMClient

log = logging.getLogger("coach.bot.services")


@dataclass
class Services:
    settings: Settings
    store: "Store"
    catalog: Catalog
    coach: "Coach"
    llm: "LLMClient | None" = None  # None when the LLM grader is off
    pictures: "PicturePool | InlineRenderer | None" = None  # worker processes, or in-process for the CLI
    speech: "PooledSpeech | InlineSpeech | SharedSpeech | None" = None  # speech-to-text: bot.speech
    # Both in the database (expiring state), so every bot process and a restarted one agree.
    explain_cooldown: GradingCooldown = None  # type: ignore[assignment]
    interview_cooldown: GradingCooldown = None  # type: ignore[assignment]
    grading_queue: GradingQueue = None  # type: ignore[assignment]  # this process's gradings (not shared)
    drafts: AnswerDrafts = None  # type: ignore[assignment]
    clock: Callable[[], datetime] = None  # type: ignore[assignment]  # default: the coach's (tests inject it)
    _topics: "TopicFinder | None" = None
    _grader: "Grader | None" = None
    _grader_error: str | None = None
    _qualifying: "asyncio.Task | None" = None  # keeps the served LLM's qualification (coach.grading.qualifier)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self):
        if self.pictures is None:
            from bot.pictures.pool import build_pictures

            self.pictures = build_pictures(self.settings)
        if self.speech is None:
            from bot.speech import build_speech

            self.speech = build_speech(self.settings)
        if self.clock is None:
            self.clock = self.coach.now if self.coach is not None else utcnow
        if self.explain_cooldown is None:
            window = timedelta(seconds=self.settings.explain_rate_window_s)
            self.explain_cooldown = GradingCooldown(self.store, self.settings.explain_rate_limit, window, self.clock)
        if self.interview_cooldown is None:
            self.interview_cooldown = GradingCooldown(
                self.store, self.settings.interview_rate_limit, timedelta(seconds=self.settings.interview_rate_window_s),
                self.clock, kind="interview_slot")
        if self.grading_queue is None:
            running = self.settings.grading_running
            reserve = min(self.settings.grading_urgent_reserve, running - 1)  # /explain keeps one slot
            self.grading_queue = GradingQueue(running, self.settings.grading_waiting, reserve)
        if self.drafts is None:
            self.drafts = AnswerDrafts(self.store, self.clock)

    async def topics(self):
        """The shared TopicFinder (loads the embedding model on first use)."""
        if self._topics is None:
            async with self._lock:
                if self._topics is None:
                    self._topics = await asyncio.to_thread(_load_topics, self.settings, self.catalog)
        return self._topics

    async def grader(self):
        """The one grading pipeline, or None when it cannot be built (the reason is logged)."""
        if self._grader is None and self._grader_error is None:
            topics = await self.topics()
            async with self._lock:
                if self._grader is None and self._grader_error is None:
                    try:
                        self._grader = await asyncio.to_thread(_load_grader, self.settings, self.catalog, topics,
                                                               self.llm)
                        self._start_qualifying()
                    except ImportError as error:
                        self._grader_error = f"grading pipeline not installed: {error}"
                        log.warning("grader unavailable", extra={"reason": self._grader_error})
                        return None
        return self._grader

    def _start_qualifying(self) -> None:
        """The served model grades members only once it qualifies; until then the CPU judge does."""
        if self._grader.llm_judge is None:
            return
        from coach.grading.qualification import CONCURRENCY
        from coach.grading.qualifier import Qualifier

        qualifier = Qualifier(self._grader, self.store, concurrency=min(CONCURRENCY, self.settings.llm_max_concurrency))
        self._qualifying = asyncio.create_task(qualifier.watch())

    def llm_status(self) -> dict:
        """The served LLM's qualification for /healthz: state, figures of both judges, reasons."""
        if self._grader is None:
            return {"state": "qualifying" if self.llm is not None else "off"}
        return self._grader.llm_status.summary()

    async def warm_up(self) -> None:
        """Load the models, and let the grading workers build every bite's reference vectors, in
        the background at start so that no member's first /explain pays for them."""
        started = time.perf_counter()
        try:
            grader = await self.grader()
            warm = grader is not None and await grader.warmed()
        except Exception:  # a broken model must not stop the bot; /explain reports it
            log.exception("warm-up failed")
        else:
            log.warning("models loaded", extra={"seconds": round(time.perf_counter() - started, 1), "warm": warm})

    async def purge_expired_state(self) -> int:
        """Delete expired cool-down uses, drafts, confirmations, claims and notices (the
        bot runs this every minute: see bot/discord/client.py)."""
        return await self.store.purge_expired_state(now=self.clock())

    async def close(self) -> None:
        if self._qualifying is not None:
            self._qualifying.cancel()
            await asyncio.gather(self._qualifying, return_exceptions=True)
        await self.pictures.close()
        await self.speech.close()
        if self._grader is not None:
            self._grader.close()
        if self.llm is not None:
            await self.llm.aclose()
        await self.store.dispose()


# Imports happen inside these worker-thread functions: importing torch and
# sentence-transformers takes seconds and must not stall the event loop.
def _load_topics(settings: Settings, catalog: Catalog):
    from coach.topics import TopicFinder

    return TopicFinder.from_settings(settings, catalog)


def _load_grader(settings: Settings, catalog: Catalog, topics, llm):
    from coach.grading.pipeline import Grader

    return Grader.from_settings(settings, catalog, topics, llm)


def build_llm(settings: Settings):
    if not settings.llm_enabled:
        return None
    from coach.grading.runtime import llm_client

    return llm_client(settings, settings.llm_base_url)


async def build_services(
    settings: Settings, *, catalog: Catalog | None = None, clock=None, topics=None, upgrade: bool = True,
    pictures=None, speech=None,
) -> Services:
    """Open the store (migrating it), build the Coach; `topics` lets tests share one model;
    `pictures`: the renderer (default: what PICTURE_WORKERS asks for, started by the adapter);
    `speech`: speech-to-text (default: what SPEECH_WORKERS asks for, started by the adapter)."""
    from coach.engine import Coach
    from coach.store import Store

    if settings.sqlite_path is not None:
        settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    if catalog is None:
        catalog = load_catalog(settings.content_dir) if settings.content_dir else default_catalog()
    store = Store(settings.database_url)
    if upgrade:
        await store.upgrade()
    coach = Coach(store, catalog, settings, clock) if clock else Coach(store, catalog, settings)
    llm = build_llm(settings)
    if llm is not None:
        await llm.start()  # opens the pool; a server that is down is fine (graders fall back)
    return Services(settings=settings, store=store, catalog=catalog, coach=coach, llm=llm, pictures=pictures,
                    speech=speech, _topics=topics)
