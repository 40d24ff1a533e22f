"""Find which item a free-form text is about: embed it (in windows when long),
search the FAISS index, max-pool the scores per item id, and decide on-topic
from a threshold calibrated on the dev set (docs/bench/retrieval.md)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from retrieval.embedder import Embedder
from retrieval.index import IndexSettings, VectorIndex
from retrieval.text import normalize

# Best cosine below which a text is about none of the items. Calibrated on
# tests/data/retrieval_dev.jsonl; the evidence is in docs/bench/retrieval.md.
DEFAULT_THRESHOLD = 0.30
INDEX_FORMAT = 1  # bump when the way vectors are made changes


@dataclass(frozen=True)
class Match:
    id: str
    score: float


@dataclass(frozen=True)
class RetrievalResult:
    matches: tuple[Match, ...]
    on_topic: bool

    @property
    def best(self) -> Match | None:
        return self.matches[0] if self.matches else None


EMPTY_RESULT = RetrievalResult((), False)


class Retriever:
    """Items are (id, text) pairs; an id may repeat (several vectors per item, max-pooled)."""

    def __init__(
        self,
        embedder: Embedder,
        items: Iterable[tuple[str, str]],
        *,
        threshold: float = DEFAULT_THRESHOLD,
        index_dir: str | Path | None = None,
        index_settings: IndexSettings = IndexSettings(),
    ):
        self.embedder = embedder
        self.threshold = threshold
        self.items = [(str(i), normalize(t)) for i, t in items if normalize(t)]
        if not self.items:
            raise ValueError("no items with text to index")
        self.ids = list(dict.fromkeys(i for i, _ in self.items))
        self._rows_per_id = max(Counter(i for i, _ in self.items).values())
        self.key = self._key(index_settings)
        self.index, self.built = VectorIndex.load_or_build(
            index_dir, self.key, self._encode_items, index_settings
        )

    def _key(self, settings: IndexSettings) -> str:
        blob = json.dumps(
            {"format": INDEX_FORMAT, "model": self.embedder.fingerprint(),
             "items": self.items, "index": settings.as_dict()},
            sort_keys=True,
        ).encode()
        return hashlib.sha256(blob).hexdigest()[:24]

    def _encode_items(self) -> tuple[np.ndarray, list[str]]:
        return self.embedder.encode([t for _, t in self.items]), [i for i, _ in self.items]

    def _pool(self, queries: np.ndarray, k: int, exclude: str | None = None) -> list[Match]:
        """Search with every query row; an id's score is its best row against any query row."""
        # Enough rows that k distinct ids survive even if each id's rows all rank together.
        wanted = min(self.index.ntotal, (k + 1) * self._rows_per_id)
        scores, rows = self.index.search(queries, wanted)
        best: dict[str, float] = {}
        for score_row, index_row in zip(scores, rows):
            for score, row in zip(score_row, index_row):
                if row < 0:
                    continue
                item_id = self.index.labels[row]
                if item_id != exclude and score > best.get(item_id, -2.0):
                    best[item_id] = float(score)
        ranked = sorted(best.items(), key=lambda pair: -pair[1])[:k]
        return [Match(i, round(s, 4)) for i, s in ranked]

    def search(self, text: str, k: int = 3) -> RetrievalResult:
        """The k best items for `text`; empty text gives no matches and on_topic False."""
        if k < 1:
            raise ValueError("k must be at least 1")
        queries = self.embedder.encode_windows(text or "")
        if queries.shape[0] == 0:
            return EMPTY_RESULT
        matches = tuple(self._pool(queries, k))
        return RetrievalResult(matches, bool(matches) and matches[0].score >= self.threshold)

    def rank_all(self, text: str) -> list[Match]:
        """Every id, best first (for benchmarks and fusion)."""
        queries = self.embedder.encode_windows(text or "")
        return self._pool(queries, len(self.ids)) if queries.shape[0] else []

    def neighbours(self, item_id: str, k: int = 3) -> list[Match]:
        """Items closest to `item_id` (its own rows as queries), itself excluded."""
        rows = [n for n, label in enumerate(self.index.labels) if label == item_id]
        if not rows:
            raise KeyError(item_id)
        vectors = self.index.vectors()[rows]
        return self._pool(vectors, k, exclude=item_id)
