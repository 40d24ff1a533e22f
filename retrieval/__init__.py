"""Which item is a text about: sentence-transformers embeddings + a FAISS index.

Knows items only as (id, text); no Discord, no LLM, no bites.
"""

from retrieval.embedder import Embedder
from retrieval.adapter import AdapterSettings
from retrieval.index import IndexSettings, VectorIndex
from retrieval.retriever import DEFAULT_THRESHOLD, EMPTY_RESULT, Match, RetrievalResult, Retriever
from retrieval.text import split_sentences

__all__ = [
    "AdapterSettings", "DEFAULT_THRESHOLD", "EMPTY_RESULT", "Embedder", "IndexSettings", "Match", "RetrievalResult",
    "Retriever", "VectorIndex", "split_sentences",
]
