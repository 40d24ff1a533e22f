"""Which bite is a text about: the coach-level service over `retrieval`.

It decides what text stands for each bite (the "recipe", chosen by measuring
on the dev set; see docs/bench/retrieval.md), builds one Retriever over the
catalog with the index persisted under `<data_dir>/index/`, and adds bite
titles to the results. One TopicFinder per process: its Embedder is shared
with the embedding grader (`finder.embedder`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from content import Bite, Catalog
from retrieval import DEFAULT_THRESHOLD, Embedder, IndexSettings, Retriever

BiteTexts = Callable[[Bite], list[str]]

# The on-topic threshold per track, calibrated on dev by bench/retrieval.py: each track keeps 98%
# of its own dev answers, then refuses as many off-topic dev texts (those whose best bite is in
# the track) as it can. One threshold for both refused real LLM-track answers four times as often
# as Inference ones (their answers sit lower in the adapter's space), for the same off-topic texts
# refused (tests/data/README-retrieval.md, fifth and sixth rounds).
TRACK_THRESHOLDS: Mapping[str, float] = {"inference": 0.493, "llm": 0.445}


def _card(bite: Bite) -> str:
    return f"{bite.title}. {bite.summary}"


def _multi_explainer(bite: Bite) -> list[str]:
    paragraphs = [p for p in bite.explainer.split("\n\n") if p.strip()]
    return [_card(bite), bite.prompt, *bite.point_texts, bite.model_answer, *paragraphs]


# What to embed per bite. Several texts per bite are separate vectors; the
# retriever pools them (mostly best row, partly mean row).
RECIPES: dict[str, BiteTexts] = {
    "summary": lambda b: [_card(b)],
    "summary+points": lambda b: [f"{_card(b)} {' '.join(b.point_texts)}"],
    "all-in-one": lambda b: [f"{_card(b)} {b.prompt} {' '.join(b.point_texts)} {b.model_answer}"],
    "multi": lambda b: [_card(b), b.prompt, *b.point_texts, b.model_answer],
    "multi+explainer": _multi_explainer,
    "multi+explainer+phrasings": lambda b: [*_multi_explainer(b), *b.phrasings],
    "multi+explainer+phrasings+flags": lambda b: [*_multi_explainer(b), *b.phrasings, *b.red_flag_phrasings],
    "multi+explainer+phrasings+flags+samples": lambda b: [
        *_multi_explainer(b), *b.phrasings, *b.red_flag_phrasings, *b.sample_answers
    ],
}
# Best on dev with the BM25 term (99.0% top-1 on 410 answers vs 96.8% without the sample
# answers), and on 135 held-out answers before they joined dev (134 vs 133); docs/bench/retrieval.md.
DEFAULT_RECIPE = "multi+explainer+phrasings+flags+samples"


_NAME_WORD = re.compile(r"[a-z0-9]+")
_ARTICLES = frozenset({"a", "an", "the"})


def name_key(text: str) -> frozenset[str]:
    """The words of a name, for exact lookups: "The KV cache" and "kv-cache" give the same key."""
    return frozenset(_NAME_WORD.findall(text.lower())) - _ARTICLES


def bite_items(bites: Iterable[Bite], recipe: str = DEFAULT_RECIPE) -> list[tuple[str, str]]:
    """The (id, text) pairs retrieval indexes for these bites."""
    texts_for = RECIPES[recipe]
    return [(bite.id, text) for bite in bites for text in texts_for(bite)]


@dataclass(frozen=True)
class Hit:
    bite_id: str
    title: str
    score: float

    def to_json(self) -> dict:
        return {"bite_id": self.bite_id, "title": self.title, "score": self.score}


@dataclass(frozen=True)
class TopicResult:
    results: list[Hit]
    on_topic: bool

    @property
    def best(self) -> Hit | None:
        return self.results[0] if self.results else None

    def to_json(self) -> dict:
        return {"results": [hit.to_json() for hit in self.results], "on_topic": self.on_topic}


class TopicFinder:
    """`find(text)` is synchronous and CPU-bound (~20 ms); call it with `asyncio.to_thread`."""

    def __init__(self, catalog: Catalog, retriever: Retriever):
        self.catalog = catalog
        self.retriever = retriever
        # `/bite kv cache` names a bite outright; similarity alone may rank a neighbour first.
        self._names = {
            key: bite.id for bite in catalog.bites.values() for key in (name_key(bite.id), name_key(bite.title)) if key
        }

    @property
    def embedder(self) -> Embedder:
        return self.retriever.embedder

    @classmethod
    def build(
        cls,
        catalog: Catalog,
        embedder: Embedder,
        *,
        index_dir=None,
        recipe: str = DEFAULT_RECIPE,
        threshold: float = DEFAULT_THRESHOLD,
        track_thresholds: Mapping[str, float] = TRACK_THRESHOLDS,
        index_settings: IndexSettings = IndexSettings(),
    ) -> "TopicFinder":
        """`threshold`: the on-topic threshold of a track `track_thresholds` does not name."""
        items = bite_items(catalog.bites.values(), recipe)
        per_bite = {b.id: track_thresholds[b.track] for b in catalog.bites.values() if b.track in track_thresholds}
        retriever = Retriever(embedder, items, threshold=threshold, item_thresholds=per_bite, index_dir=index_dir,
                              index_settings=index_settings)
        return cls(catalog, retriever)

    @classmethod
    def from_settings(cls, settings, catalog: Catalog, embedder: Embedder | None = None) -> "TopicFinder":
        """Load the model (unless given one to share) and load or build the index under data_dir/index."""
        embedder = embedder or Embedder(settings.embedding_model_path, precision=settings.embedding_precision)
        return cls.build(catalog, embedder, index_dir=settings.data_dir / "index")

    def _hit(self, bite_id: str, score: float) -> Hit:
        return Hit(bite_id, self.catalog.bites[bite_id].title, score)

    def find(self, text: str, k: int = 3) -> TopicResult:
        """The k bites `text` is most likely about; empty text gives no results and on_topic False."""
        named = self._names.get(name_key(text or ""))
        if named is None:
            found = self.retriever.search(text, k)
            return TopicResult([self._hit(m.id, m.score) for m in found.matches], found.on_topic)
        # The text is a bite's id or title: that bite first, the rest by similarity.
        found = self.retriever.search(text, len(self.retriever.ids))
        matches = sorted(found.matches, key=lambda m: m.id != named)[:k]
        return TopicResult([self._hit(m.id, m.score) for m in matches], True)

    def related(self, bite_id: str, k: int = 3) -> list[Hit]:
        """Bites nearest to `bite_id` in embedding space (the authored `related` list is separate)."""
        if bite_id not in self.catalog.bites:
            raise KeyError(f"unknown bite: {bite_id}")
        return [self._hit(m.id, m.score) for m in self.retriever.neighbours(bite_id, k)]
