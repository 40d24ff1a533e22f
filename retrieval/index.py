"""A FAISS inner-product index over normalized vectors, persisted under a key.

Exact (`IndexFlatIP`) up to `exact_max` rows, HNSW above it. Each row carries a
label (an item id; several rows may share one). On disk: `index.faiss` and
`meta.json` in one folder; `meta.json` is written last, so a half-written index
is never loaded, and its key (a hash of the items, the model and the index
settings) decides whether the saved index is still valid.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import faiss
import numpy as np

INDEX_FILE = "index.faiss"
META_FILE = "meta.json"


@dataclass(frozen=True)
class IndexSettings:
    exact_max: int = 20_000  # rows; above this the index is approximate
    hnsw_m: int = 32  # graph degree: higher = better recall, more memory
    ef_construction: int = 80
    ef_search: int = 128  # candidates per query: higher = better recall, slower

    def as_dict(self) -> dict:
        return {"exact_max": self.exact_max, "hnsw_m": self.hnsw_m,
                "ef_construction": self.ef_construction, "ef_search": self.ef_search}


class VectorIndex:
    def __init__(self, index: faiss.Index, labels: list[str], settings: IndexSettings = IndexSettings()):
        if index.ntotal != len(labels):
            raise ValueError(f"{index.ntotal} vectors but {len(labels)} labels")
        self._index = index
        self.labels = list(labels)
        self.settings = settings
        if isinstance(index, faiss.IndexHNSW):
            index.hnsw.efSearch = settings.ef_search

    @classmethod
    def build(cls, vectors: np.ndarray, labels: list[str], settings: IndexSettings = IndexSettings()) -> "VectorIndex":
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise ValueError("need a non-empty 2-D array of vectors")
        dim = vectors.shape[1]
        if vectors.shape[0] <= settings.exact_max:
            index = faiss.IndexFlatIP(dim)
        else:
            index = faiss.IndexHNSWFlat(dim, settings.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = settings.ef_construction
        index.add(vectors)
        return cls(index, labels, settings)

    @property
    def kind(self) -> str:
        return "hnsw" if isinstance(self._index, faiss.IndexHNSW) else "flat"

    @property
    def ntotal(self) -> int:
        return self._index.ntotal

    @property
    def dim(self) -> int:
        return self._index.d

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores and row numbers, best first, shape (len(queries), k); missing rows are -1."""
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        return self._index.search(queries, max(1, min(k, self.ntotal)))

    def vectors(self) -> np.ndarray:
        return self._index.reconstruct_n(0, self.ntotal)

    def save(self, directory: str | Path, key: str) -> None:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        meta = {"key": key, "kind": self.kind, "dim": self.dim, "ntotal": self.ntotal,
                "labels": self.labels, "settings": self.settings.as_dict()}
        _atomic_write(directory / INDEX_FILE, faiss.serialize_index(self._index).tobytes())
        _atomic_write(directory / META_FILE, json.dumps(meta).encode())

    @classmethod
    def load(cls, directory: str | Path, key: str) -> "VectorIndex | None":
        """The saved index if its key matches and it is intact, else None."""
        directory = Path(directory)
        try:
            meta = json.loads((directory / META_FILE).read_text())
            if meta.get("key") != key:
                return None
            index = faiss.read_index(str(directory / INDEX_FILE))
            if index.ntotal != meta["ntotal"] or index.d != meta["dim"]:
                return None
            return cls(index, meta["labels"], IndexSettings(**meta["settings"]))
        except (OSError, ValueError, KeyError, TypeError, RuntimeError):
            return None

    @classmethod
    def load_or_build(
        cls,
        directory: str | Path | None,
        key: str,
        make_vectors: Callable[[], tuple[np.ndarray, list[str]]],
        settings: IndexSettings = IndexSettings(),
    ) -> tuple["VectorIndex", bool]:
        """Load the index saved under `key`, or build (and save) it. Returns (index, built)."""
        if directory is not None:
            loaded = cls.load(directory, key)
            if loaded is not None:
                return loaded, False
        vectors, labels = make_vectors()
        index = cls.build(vectors, labels, settings)
        if directory is not None:
            index.save(directory, key)
        return index, True


def _atomic_write(path: Path, data: bytes) -> None:
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
