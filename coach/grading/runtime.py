"""Assemble a ready Grader for an adapter (CLI, bench): the model and index loaded
once, an LLM client opened when one is wanted, everything closed afterwards."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

from coach.grading.pipeline import Grader

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
    settings, *, catalog=None, topics=None, llm_url: str | None = _FROM_SETTINGS
) -> AsyncIterator[Grader]:
    """`llm_url`: the LLM's base URL, None for the embedding grader only, or (default) what
    the settings say (`llm_base_url` when `llm_enabled`)."""
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
        yield Grader.from_settings(settings.model_copy(update={"llm_enabled": True}), catalog, topics, client)
    finally:
        await client.aclose()
