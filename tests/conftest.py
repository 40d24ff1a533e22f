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
