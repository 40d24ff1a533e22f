"""Shared test set-up. Fixture plugins: the database pair and the one local vLLM server."""

import os

import pytest

# Nothing may download weights at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# One definition each: the SQLite/PostgreSQL store fixtures and the session's one vLLM server.
pytest_plugins = ["tests.fixtures.db", "tests.fixtures.vllm"]


@pytest.fixture(scope="session")
def embedder():
    """The one embedding model of the test session (retrieval and grading tests share it)."""
    from retrieval import Embedder

    return Embedder()


@pytest.fixture(scope="session")
def shipped_catalog():
    from content import default_catalog

    return default_catalog()


@pytest.fixture(scope="session")
def shipped_data_dir(tmp_path_factory):
    """One data folder for the shipped track's index: the CLI tests reuse what this built."""
    return tmp_path_factory.mktemp("shipped-data")


@pytest.fixture(scope="session")
def shipped_topics(shipped_catalog, embedder, shipped_data_dir):
    """One finder over the shipped track for the session (retrieval and grading tests share it)."""
    from coach.topics import TopicFinder

    return TopicFinder.build(shipped_catalog, embedder, index_dir=shipped_data_dir / "index")


@pytest.fixture(scope="session")
def shipped_grader(shipped_catalog, shipped_topics, embedder):
    """The embedding grader over the shipped track, with the follow-up reader for interview
    follow-ups (the LLM is off: no server in these tests)."""
    from coach.grading.embedding_judge import EmbeddingJudge, idf_corpus
    from coach.grading.fit import load_fit
    from coach.grading.pipeline import Grader
    from retrieval import split_sentences

    fit = load_fit()
    judge = EmbeddingJudge(embedder, split_sentences, fit.thresholds, idf_corpus(shipped_catalog))
    return Grader(shipped_catalog, shipped_topics, judge, None, fit=fit, followup_reader=_followup_reader(fit))


def _followup_reader(fit):
    """Interview follow-ups are read as the bot reads them: by the follow-up reader, on a thread."""
    from coach.grading.pipeline import inline_followup_reader
    from retrieval import split_sentences

    return inline_followup_reader(fit.followup_thresholds, split_sentences) if fit.followup_thresholds else None
