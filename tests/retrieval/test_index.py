import numpy as np
import pytest

from retrieval.index import INDEX_FILE, IndexSettings, VectorIndex


def unit_rows(n: int, dim: int = 16, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_exact_below_the_limit_and_approximate_above():
    vectors = unit_rows(50)
    labels = [f"v{i}" for i in range(50)]
    assert VectorIndex.build(vectors, labels, IndexSettings(exact_max=50)).kind == "flat"
    assert VectorIndex.build(vectors, labels, IndexSettings(exact_max=49)).kind == "hnsw"


@pytest.mark.parametrize("exact_max", [1000, 0])
def test_a_vector_finds_itself_first(exact_max):
    vectors = unit_rows(200)
    index = VectorIndex.build(vectors, [str(i) for i in range(200)], IndexSettings(exact_max=exact_max))
    scores, rows = index.search(vectors[:20], 3)
    assert list(rows[:, 0]) == list(range(20))
    assert np.allclose(scores[:, 0], 1.0, atol=1e-5)
    assert (scores[:, 0] >= scores[:, 1]).all()


def test_save_and_load_under_a_key(tmp_path):
    vectors = unit_rows(10)
    index = VectorIndex.build(vectors, list("abcdefghij"))
    index.save(tmp_path, "key-1")
    loaded = VectorIndex.load(tmp_path, "key-1")
    assert loaded is not None and loaded.labels == list("abcdefghij")
    assert np.allclose(loaded.vectors(), vectors)
    assert VectorIndex.load(tmp_path, "key-2") is None


def test_a_damaged_index_file_is_not_loaded(tmp_path):
    VectorIndex.build(unit_rows(10), list("abcdefghij")).save(tmp_path, "k")
    (tmp_path / INDEX_FILE).write_bytes(b"not an index")
    assert VectorIndex.load(tmp_path, "k") is None


def test_load_or_build_builds_once(tmp_path):
    calls = []

    def make():
        calls.append(1)
        return unit_rows(5), list("abcde")

    _, built = VectorIndex.load_or_build(tmp_path, "k", make)
    again, built_again = VectorIndex.load_or_build(tmp_path, "k", make)
    assert (built, built_again, len(calls)) == (True, False, 1)
    assert again.ntotal == 5
    _, rebuilt = VectorIndex.load_or_build(tmp_path, "other", make)
    assert rebuilt and len(calls) == 2


def test_labels_must_match_vectors():
    with pytest.raises(ValueError):
        VectorIndex.build(unit_rows(3), ["a", "b"])
    with pytest.raises(ValueError):
        VectorIndex.build(np.zeros((0, 4), dtype=np.float32), [])
