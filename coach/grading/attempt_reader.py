"""The injection net's learned tier: it says whether a piece of an answer is addressed to whoever
grades it (issue #27).

The patterns (coach.grading.injection) catch forms, and a writer who invents a tactic per
attempt stays a step ahead of any list of forms (docs/grading.md, probe v5). This reader is
trained on sentences labelled by what they do rather than the words they use: the development
probes' attempts read sentence by sentence, attempts written in many tactics and languages, and
honest sentences that use grading words in their ordinary sense (content/judge/injection/).
Two readers, averaged: a small network over each piece's frozen sentence vector, and MiniLM
fine-tuned on the same labels (coach.grading.attempt_classifier). `coach grader train-net`
builds both (coach.grading.attempt_training) and sets the threshold on their out-of-fold
readings, so that honest answers, the hard ones included, are rarely flagged.

It reads every piece of the answer (sentences, windows of long ones) normalised as the patterns
read it (look-alike letters mapped, invisible characters dropped), and the texts the net finds
hidden in encodings. Only the CPU path uses it (coach.grading.injection.without_model): on the
LLM path the model reads intent itself.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coach.grading import injection

ARTIFACT = Path(__file__).with_name("attempt_reader.npz")
FORMAT_VERSION = 3


@dataclass(frozen=True)
class AttemptReader:
    """A small network over a piece's sentence vector (ReLU hidden layers, a logistic output),
    averaged with the fine-tuned classifier's reading of the piece's text when there is one."""

    layers: tuple[tuple[np.ndarray, np.ndarray], ...]  # (weights, biases) per layer
    threshold: float  # a piece reading at or above it makes the answer an attempt
    fitted_on: dict
    classifier: object | None = None  # coach.grading.attempt_classifier.AttemptClassifier

    def network(self, vectors: np.ndarray) -> np.ndarray:
        h = vectors
        for weights, biases in self.layers[:-1]:
            h = np.maximum(h @ weights + biases, 0.0)
        weights, biases = self.layers[-1]
        return 1.0 / (1.0 + np.exp(-(h @ weights + biases).ravel()))

    def probabilities(self, vectors: np.ndarray, texts: list[str]) -> np.ndarray:
        """Per piece: `vectors` are the pieces' sentence vectors, `texts` the same pieces."""
        network = self.network(vectors)
        return network if self.classifier is None else (network + self.classifier.probabilities(texts)) / 2

    def top(self, vectors: np.ndarray, texts: list[str]) -> float:
        return float(self.probabilities(vectors, texts).max()) if len(vectors) else 0.0

    def reads_attempt(self, vectors: np.ndarray, texts: list[str]) -> bool:
        """`top(...) >= threshold`, with the classifier reading only the pieces that could reach
        it: the classifier reads at most 1, so the mean reaches the threshold only where the
        network alone reads at least 2·threshold − 1. Most pieces of most answers are far below."""
        network = self.network(vectors) if len(vectors) else np.zeros(0)
        if self.classifier is None:
            return bool(network.max(initial=0.0) >= self.threshold)
        worth = np.flatnonzero(network >= 2 * self.threshold - 1)
        if not len(worth):
            return False
        both = (network[worth] + self.classifier.probabilities([texts[i] for i in worth])) / 2
        return bool(both.max() >= self.threshold)

    def save(self, path: Path, figures: dict | None = None, classifier_file: str | None = None) -> None:
        meta = {"format": FORMAT_VERSION, "fitted_on": self.fitted_on, "threshold": self.threshold,
                "layers": len(self.layers), "figures": figures or {}, "classifier": classifier_file}
        arrays = {f"{kind}{i}": array.astype(np.float32) for i, (w, b) in enumerate(self.layers)
                  for kind, array in (("w", w), ("b", b))}
        with open(path, "wb") as out:  # a file object: np.savez would append ".npz" to a path
            np.savez_compressed(out, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)


@functools.lru_cache(maxsize=4)
def load(path: Path = ARTIFACT) -> AttemptReader | None:
    """The shipped reader, or None where none was built (the net then has its patterns only).
    Once per process: the reader is immutable and its classifier thread-safe, and every judge
    in the process shares them."""
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT_VERSION:
            raise ValueError(f"{path.name}: format {meta.get('format')}, expected {FORMAT_VERSION}; "
                             "run `coach grader train-net`")
        layers = tuple((data[f"w{i}"], data[f"b{i}"]) for i in range(meta["layers"]))
    classifier = None
    if meta.get("classifier"):
        from coach.grading.attempt_classifier import AttemptClassifier

        classifier = AttemptClassifier(path.with_name(meta["classifier"]))
    return AttemptReader(layers, float(meta["threshold"]), dict(meta["fitted_on"]), classifier)


def reader_texts(pieces: list[str], answer: str) -> tuple[list[str], list[int]]:
    """What the reader reads of an answer: each piece normalised, then the texts hidden in it.
    Also which of those differ from the raw pieces read case-insensitively (the model is uncased),
    so a caller holding the raw pieces' vectors encodes only those."""
    texts = [injection.normalize(p) for p in pieces] + [decoded for _, decoded in injection.hidden_texts(answer)]
    changed = [i for i, t in enumerate(texts) if i >= len(pieces) or t != pieces[i].casefold()]
    return texts, changed
