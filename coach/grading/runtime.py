"""Assemble a ready Grader for an adapter (CLI, bench): the model and index loaded
once, an LLM client opened when one is wanted, everything closed afterwards."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from coach.grading.pipeline import Grader
from coach.grading.qualification import Qualification

_FROM_SETTINGS = "settings"


def llm_client(settings, base_url: str):
    """The one way to build the LLM client from the settings (bot, CLI, bench)."""
    from serving.client import LLMClient

    return LLMClient(
        base_url,
        settings.llm_model,
        timeout_s=settings.llm_timeout_s,
        max_concurrency=settings.llm_max_concurrency,
        max_retries=settings.llm_max_retries,
        breaker_failures=settings.llm_breaker_failures,
        breaker_cooldown_s=settings.llm_breaker_cooldown_s,
    )


@asynccontextmanager
async def open_grader(
    settings, *, catalog=None, topics=None, llm_url: str | None = _FROM_SETTINGS, trust_llm: bool = False
) -> AsyncIterator[Grader]:
    """`llm_url`: the LLM's base URL, None for the embedding grader only, or (default) what
    the settings say (`llm_base_url` when `llm_enabled`). The LLM grades only if the database
    holds its qualification (`coach grader qualify`); `trust_llm` skips that for the tools that
    measure the model itself (`coach grader compare`, `coach grader qualify`, benchmarks)."""
    from coach.topics import TopicFinder
    from content import default_catalog

    catalog = catalog or default_catalog()
    topics = topics or TopicFinder.from_settings(settings, catalog)
    if llm_url == _FROM_SETTINGS:
        llm_url = settings.llm_base_url if settings.llm_enabled else None
    settings = settings.model_copy(update={"grader_workers": 0})  # one command, one process: no pool to start
    if llm_url is None:
        yield Grader.from_settings(settings.model_copy(update={"llm_enabled": False}), catalog, topics, None)
        return
    client = llm_client(settings, llm_url)
    await client.start()
    try:
        grader = Grader.from_settings(settings.model_copy(update={"llm_enabled": True}), catalog, topics, client)
        if trust_llm:
            grader.trust_llm()
        else:
            grader.llm_status = await stored_status(settings, grader)
        yield grader
    finally:
        await client.aclose()


@asynccontextmanager
async def migrated_store(settings) -> AsyncIterator:
    """The settings' database, created and migrated if need be (a command may run on a fresh var/)."""
    from coach.store import Store

    if settings.sqlite_path is not None:
        settings.sqlite_path.parent.mkdir(parents=True, exist_ok=True)
    async with Store(settings.database_url) as store:
        await store.upgrade()
        yield store


async def stored_status(settings, grader: Grader) -> Qualification:
    """The qualification stored for what the grader's LLM serves now (a one-shot command runs
    none: it would block the reply)."""
    from coach.grading.qualifier import key_for, stored

    key = await key_for(grader)
    if key is None:
        return Qualification("qualifying", reasons=["the server does not list the configured model"])
    async with migrated_store(settings) as store:
        found = await stored(store, key)
    return found or Qualification("qualifying", key.model_id, ["not qualified yet: run `coach grader qualify`"])
