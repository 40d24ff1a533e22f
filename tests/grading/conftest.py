"""Grading test fixtures: a small demo catalog (tracks/demo, written for these tests),
graders over it and over the shipped track (whose catalog and finder, like the one
embedding model, come from the root conftest), a fake OpenAI-compatible server for the
LLM path."""

from __future__ import annotations

from pathlib import Path

import pytest

from coach.grading.embedding_judge import EmbeddingJudge, idf_corpus
from coach.grading.fit import load_fit
from coach.grading.llm_judge import LLMJudge
from coach.grading.pipeline import Grader
from coach.topics import TopicFinder
from content import load_catalog
from retrieval import split_sentences
from serving.client import LLMClient
from tests.serving.fake_llm import FakeLLMServer

TRACKS = Path(__file__).parent / "tracks"


@pytest.fixture(scope="session")
def demo_catalog():
    return load_catalog(TRACKS)


@pytest.fixture(scope="session")
def demo_topics(demo_catalog, embedder, tmp_path_factory) -> TopicFinder:
    return TopicFinder.build(demo_catalog, embedder, index_dir=tmp_path_factory.mktemp("demo-index"))


@pytest.fixture(scope="session")
def shipped_fit():
    """The shipped artifact: tests exercise the numbers users get."""
    return load_fit()


@pytest.fixture(scope="session")
def embedding_judge(embedder, shipped_fit, shipped_catalog) -> EmbeddingJudge:
    return EmbeddingJudge(embedder, split_sentences, shipped_fit.thresholds, idf_corpus(shipped_catalog))


def make_llm_client(base_url: str, **overrides) -> LLMClient:
    options = dict(timeout_s=5.0, max_concurrency=4, max_retries=0, breaker_failures=3, breaker_cooldown_s=30.0)
    options.update(overrides)
    return LLMClient(base_url, "grader", **options)


def make_grader(catalog, topics, judge, client=None, *, max_chars: int = 4000, max_tokens: int = 256,
                trust_llm: bool = True) -> Grader:
    """A grader over `catalog`; with a `client`, its LLM path is trusted without qualification
    (these tests exercise the path itself) unless `trust_llm` is False."""
    llm = LLMJudge(client, max_tokens=max_tokens) if client is not None else None
    grader = Grader(catalog, topics, judge, llm, fit=load_fit(), max_chars=max_chars)
    if llm is not None and trust_llm:
        grader.trust_llm()
    return grader


@pytest.fixture
def demo_grader(demo_catalog, demo_topics, embedding_judge) -> Grader:
    return make_grader(demo_catalog, demo_topics, embedding_judge)


@pytest.fixture
async def fake_llm():
    server = await FakeLLMServer().start()
    yield server
    await server.stop()
