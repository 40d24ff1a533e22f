"""The session's one real Embedder and the finder over the shipped track (`shipped_topics`)
come from the root conftest; here: a small fixture catalog and a finder over it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coach.topics import TopicFinder
from content import load_catalog
from retrieval import Embedder

FIXTURE_CATALOG = Path(__file__).parent / "fixtures" / "catalog"


@pytest.fixture(scope="session")
def mini_catalog():
    return load_catalog(FIXTURE_CATALOG)


@pytest.fixture(scope="session")
def mini_finder(embedder, mini_catalog, tmp_path_factory) -> TopicFinder:
    return TopicFinder.build(mini_catalog, embedder, index_dir=tmp_path_factory.mktemp("mini-index"))


class CountingEmbedder:
    """The real embedder, counting how many texts it was asked to encode."""

    def __init__(self, inner: Embedder, fingerprint: str | None = None):
        self.inner = inner
        self.dim = inner.dim
        self.encoded = 0
        self._fingerprint = fingerprint

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return self.inner.encode(texts)

    def windows(self, text: str) -> list[str]:
        return self.inner.windows(text)

    def encode_windows(self, text: str) -> np.ndarray:
        return self.encode(self.windows(text))

    def fingerprint(self) -> str:
        return self._fingerprint or self.inner.fingerprint()


@pytest.fixture
def adapter_fits(monkeypatch) -> list[int]:
    """Counts real adapter fits (the fit itself still runs)."""
    from retrieval import adapter

    calls: list[int] = []
    real_fit = adapter.fit
    monkeypatch.setattr(adapter, "fit", lambda *a, **k: calls.append(1) or real_fit(*a, **k))
    return calls
