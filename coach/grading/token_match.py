"""Token-level matching of a key point against an answer (BERTScore-style recall).

A sentence vector blurs a point into its topic: every on-topic answer sits close to
every point of its bite. Matching word pieces keeps the point's specific content: for
each word piece of the point, its best cosine to any word piece of the answer (contextual
vectors of the same MiniLM model), averaged with IDF weights so "the", "is" and "model"
count for little and "queries", "causal" and "bandwidth" for much. The IDF comes from the
catalog's own texts; nothing here is fitted on labels.

Word pieces of the question the candidate was asked weigh nothing: the candidate heard
them, so repeating them is no evidence of knowing the point ("what does the KV cache
store?" gives every answer "KV" and "cache").
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterable

import numpy as np

CHUNK_WORDS, CHUNK_STRIDE = 150, 120  # MiniLM reads 256 word pieces: a long answer is read in chunks


class TokenMatcher:
    def __init__(self, embedder, corpus: Iterable[str]):
        self._embedder = embedder
        documents = [set(embedder.word_pieces(text.lower())) for text in corpus]
        frequency = Counter(piece for doc in documents for piece in doc)
        self._n = len(documents)
        self._frequency = frequency

    def idf(self, piece: str) -> float:
        return math.log((self._n + 1) / (self._frequency.get(piece.lower(), 0) + 1))

    def encode_reference(self, texts: list[str], given: str = "") -> list[tuple[np.ndarray, np.ndarray]]:
        """Per text (a key point, the purpose): its piece vectors and IDF weights, with the
        pieces of `given` (the question asked) weighing nothing, unless that leaves none."""
        free = {p.lower() for p in self._embedder.word_pieces(given.lower())} if given else set()
        references = []
        for pieces, vectors in self._embedder.token_vectors(texts):
            weights = np.array([self.idf(p) for p in pieces])
            discounted = np.array([0.0 if p.lower() in free else w for p, w in zip(pieces, weights)])
            references.append((vectors, discounted if discounted.sum() > 0 else weights))
        return references

    def encode_answer(self, answer: str) -> np.ndarray:
        """Every word piece of the answer, read in overlapping chunks."""
        words = answer.split()
        starts = range(0, max(1, len(words) - (CHUNK_WORDS - CHUNK_STRIDE)), CHUNK_STRIDE)
        chunks = [" ".join(words[i:i + CHUNK_WORDS]) for i in starts] or [answer]
        vectors = [v for _, v in self._embedder.token_vectors(chunks) if len(v)]
        return np.vstack(vectors) if vectors else np.zeros((0, 1), np.float32)

    @staticmethod
    def recall(reference: tuple[np.ndarray, np.ndarray], answer_vectors: np.ndarray) -> float:
        vectors, weights = reference
        if not len(answer_vectors) or not len(vectors) or weights.sum() <= 0:
            return 0.0
        best = (vectors @ answer_vectors.T).max(axis=1)
        return float((weights * best).sum() / weights.sum())
