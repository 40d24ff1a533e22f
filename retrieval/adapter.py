"""A linear map fitted to the catalog's own rows that pulls texts of one item together.

The small embedding model is general-purpose: how a text is worded (spoken or
written, right or wrong) can move it as much as what it is about, so an
answer that never names its topic can sit nearly as close to a neighbouring
item as to its own. Fitting M = I + A on the indexed rows alone (contrastive: a row
should be nearer another row of its item than rows of other items in the same
batch) sharpens those boundaries for ranking. No labelled answers are used, so
dev and test stay unseen. It takes half a second on two cores and is saved
next to the index under the same key, so an unchanged catalog loads it.

The fit starts at the identity and takes few, small steps: a mild linear change
of the model's space, not a new model. Ranking uses it, and since issue #29's
refit so does the on-topic test: with both tracks' answers in dev, the adapted
score tells answers from off-topic texts better (docs/bench/retrieval.md).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ADAPTER_FILE = "adapter.npz"


@dataclass(frozen=True)
class AdapterSettings:
    steps: int = 100  # 0 turns the adapter off; chosen on dev with both tracks (docs/bench/retrieval.md)
    learning_rate: float = 1e-3
    batch_items: int = 32  # distinct items per batch: each row's negatives are the others' rows
    temperature: float = 0.05
    seed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def fit(vectors: np.ndarray, labels: list[str], settings: AdapterSettings = AdapterSettings()) -> np.ndarray:
    """M (dim x dim), fitted on (row, another row of the same item) pairs against in-batch rows of other items."""
    import torch

    dim = vectors.shape[1]
    rows: dict[str, list[int]] = defaultdict(list)
    for row, label in enumerate(labels):
        rows[label].append(row)
    ids = sorted(rows)
    batch = min(settings.batch_items, len(ids))
    if settings.steps <= 0 or batch < 2:
        return np.eye(dim, dtype=np.float32)
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)
    data = torch.from_numpy(np.ascontiguousarray(vectors, dtype=np.float32))
    delta = torch.zeros(dim, dim, requires_grad=True)
    optimizer = torch.optim.Adam([delta], lr=settings.learning_rate)
    targets = torch.arange(batch)

    def mapped(x: "torch.Tensor") -> "torch.Tensor":
        return torch.nn.functional.normalize(x + x @ delta, dim=-1)

    for _ in range(settings.steps):
        chosen = rng.sample(ids, batch)
        anchors = [rng.choice(rows[i]) for i in chosen]
        positives = [rng.choice([r for r in rows[i] if r != a] or [a]) for i, a in zip(chosen, anchors)]
        logits = mapped(data[anchors]) @ mapped(data[positives]).T / settings.temperature
        loss = (torch.nn.functional.cross_entropy(logits, targets)
                + torch.nn.functional.cross_entropy(logits.T, targets)) / 2
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return (np.eye(dim, dtype=np.float32) + delta.detach().numpy()).astype(np.float32)


def apply(matrix: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Rows mapped by M and re-normalized."""
    out = vectors @ matrix
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.ascontiguousarray(out / np.maximum(norms, 1e-12), dtype=np.float32)


def load_or_fit(
    directory: str | Path | None, key: str, vectors: np.ndarray, labels: list[str], settings: AdapterSettings
) -> np.ndarray:
    """The matrix saved under `key` + settings in `directory`, or a fresh fit (saved when there is a directory)."""
    stamp = json.dumps({"key": key, "settings": settings.as_dict()}, sort_keys=True)
    path = Path(directory) / ADAPTER_FILE if directory is not None else None
    if path is not None and path.exists():
        try:
            with np.load(path) as saved:
                if str(saved["stamp"]) == stamp and saved["matrix"].shape == (vectors.shape[1],) * 2:
                    return saved["matrix"].astype(np.float32)
        except (OSError, ValueError, KeyError):
            pass  # unreadable or half-written: fit again
    matrix = fit(vectors, labels, settings)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp.npz")
        np.savez(temp, matrix=matrix, stamp=np.array(stamp))
        temp.replace(path)
    return matrix
