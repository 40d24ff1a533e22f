"""The BM25 baseline (rank-bm25) and reciprocal-rank fusion, over the same (id, text) items."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Iterable

from rank_bm25 import BM25Okapi

_WORD = re.compile(r"[a-z0-9]+")

# Too common in spoken answers to say anything about the topic.
STOPWORDS = frozenset(
    "a an and are as at be because but by can do does for from has have how i if in into is it its "
    "just like of on or so that the then there they this to uh um was we what when where which while "
    "with you your basically mean kind sort okay yeah well".split()
)


def tokenize(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


class BM25Ranker:
    """One BM25 document per id: the concatenation of all that id's texts."""

    def __init__(self, items: Iterable[tuple[str, str]]):
        grouped: dict[str, list[str]] = defaultdict(list)
        for item_id, text in items:
            grouped[item_id].append(text)
        self.ids = list(grouped)
        self._bm25 = BM25Okapi([tokenize(" ".join(grouped[i])) for i in self.ids])

    def rank(self, text: str) -> list[tuple[str, float]]:
        """Every id with its BM25 score, best first; all zeros when no query word is known."""
        scores = self._bm25.get_scores(tokenize(text))
        return sorted(zip(self.ids, (float(s) for s in scores)), key=lambda pair: -pair[1])


def reciprocal_rank_fusion(rankings: list[list[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(id) = sum over lists of 1 / (k + rank), rank from 1."""
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for rank, item_id in enumerate(ranking, start=1):
            fused[item_id] += 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda pair: -pair[1])
