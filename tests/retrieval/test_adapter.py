"""The linear adapter fitted to the catalog's own rows (synthetic vectors: fast and exact)."""

import numpy as np

from retrieval import adapter
from retrieval.adapter import AdapterSettings

DIM, ITEMS, ROWS = 24, 8, 6
TOPIC_DIMS = 8


def clustered(rng: np.random.Generator, centres: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
    """ROWS rows around each of ITEMS directions (random unless given), normalized.

    Items differ only in the first TOPIC_DIMS dimensions; the others carry
    only large noise, as wording and style do for real texts.
    """
    if centres is None:
        centres = np.zeros((ITEMS, DIM))
        centres[:, :TOPIC_DIMS] = rng.normal(size=(ITEMS, TOPIC_DIMS))
    noise = rng.normal(size=(ITEMS * ROWS, DIM))
    noise[:, :TOPIC_DIMS] *= 0.3
    vectors = np.repeat(centres, ROWS, axis=0) + noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32), [f"item{i}" for i in range(ITEMS) for _ in range(ROWS)]


def nearest_other_row_accuracy(vectors: np.ndarray, labels: list[str]) -> float:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    return float(np.mean([labels[j] == labels[i] for i, j in enumerate(sims.argmax(axis=1))]))


def test_fitting_pulls_rows_of_an_item_together_on_rows_it_never_saw():
    centres = np.zeros((ITEMS, DIM))
    centres[:, :TOPIC_DIMS] = np.random.default_rng(7).normal(size=(ITEMS, TOPIC_DIMS))
    train, labels = clustered(np.random.default_rng(8), centres)
    matrix = adapter.fit(train, labels, AdapterSettings(steps=300, batch_items=ITEMS))
    # Fresh rows around the same centres: the map generalizes, it does not memorize rows.
    fresh, _ = clustered(np.random.default_rng(9), centres)
    before = nearest_other_row_accuracy(fresh, labels)
    after = nearest_other_row_accuracy(adapter.apply(matrix, fresh), labels)
    assert after > before + 0.1, (before, after)


def test_the_fit_is_deterministic_and_starts_from_the_identity():
    vectors, labels = clustered(np.random.default_rng(1))
    first = adapter.fit(vectors, labels, AdapterSettings(steps=20))
    assert np.array_equal(first, adapter.fit(vectors, labels, AdapterSettings(steps=20)))
    assert np.array_equal(adapter.fit(vectors, labels, AdapterSettings(steps=0)), np.eye(DIM, dtype=np.float32))
    one_item = adapter.fit(vectors[:ROWS], labels[:ROWS], AdapterSettings(steps=20))
    assert np.array_equal(one_item, np.eye(DIM, dtype=np.float32))


def test_applied_rows_are_unit_length():
    vectors, labels = clustered(np.random.default_rng(2))
    mapped = adapter.apply(adapter.fit(vectors, labels, AdapterSettings(steps=20)), vectors)
    assert mapped.dtype == np.float32 and np.allclose(np.linalg.norm(mapped, axis=1), 1.0, atol=1e-5)


class TestSaved:
    def test_same_key_and_settings_load_other_key_refits(self, tmp_path, adapter_fits):
        vectors, labels = clustered(np.random.default_rng(3))
        settings = AdapterSettings(steps=20)
        saved = adapter.load_or_fit(tmp_path, "k1", vectors, labels, settings)
        assert np.array_equal(adapter.load_or_fit(tmp_path, "k1", vectors, labels, settings), saved)
        assert len(adapter_fits) == 1
        adapter.load_or_fit(tmp_path, "k2", vectors, labels, settings)
        assert len(adapter_fits) == 2

    def test_a_damaged_file_is_refitted_not_a_crash(self, tmp_path, adapter_fits):
        vectors, labels = clustered(np.random.default_rng(4))
        (tmp_path / adapter.ADAPTER_FILE).write_bytes(b"not an npz file")
        matrix = adapter.load_or_fit(tmp_path, "k", vectors, labels, AdapterSettings(steps=5))
        assert matrix.shape == (DIM, DIM) and len(adapter_fits) == 1
        assert adapter.load_or_fit(tmp_path, "k", vectors, labels, AdapterSettings(steps=5)).shape == (DIM, DIM)
        assert len(adapter_fits) == 1

    def test_no_directory_fits_every_time_and_writes_nothing(self, tmp_path, adapter_fits):
        vectors, labels = clustered(np.random.default_rng(5))
        adapter.load_or_fit(None, "k", vectors, labels, AdapterSettings(steps=5))
        adapter.load_or_fit(None, "k", vectors, labels, AdapterSettings(steps=5))
        assert len(adapter_fits) == 2 and not any(tmp_path.iterdir())
