"""The embedding retriever with the real model and real FAISS."""

import numpy as np
import pytest

from retrieval import EMPTY_RESULT, AdapterSettings, Embedder, Retriever

from .conftest import CountingEmbedder

ITEMS = [
    ("cache", "The key/value cache stores past tokens' keys and values so decoding only projects the newest token."),
    ("cache", "Why does a decoder keep the keys and values of earlier tokens?"),
    ("batching", "Continuous batching: sequences join and leave the running batch at every decode step."),
    ("probes", "Readiness probes keep a pod out of rotation; liveness probes restart a stuck container."),
]


def test_encode_gives_normalized_float32_rows(embedder: Embedder):
    vectors = embedder.encode(["the kv cache", "continuous batching", "hello"])
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, embedder.dim)


def test_encode_windows_splits_long_text_only(embedder: Embedder):
    assert embedder.encode_windows("short answer about caching").shape[0] == 1
    assert embedder.encode_windows("").shape[0] == 0
    long_rows = embedder.encode_windows("the scheduler admits new requests every step. " * 300)
    assert 1 < long_rows.shape[0] <= 16
    assert all(n <= 128 for n in embedder.count_tokens(embedder.windows("word " * 2000)))


def test_fingerprint_is_stable_and_short(embedder: Embedder):
    assert embedder.fingerprint() == embedder.fingerprint()
    assert len(embedder.fingerprint()) == 16


def test_finds_the_item_a_spoken_answer_is_about(embedder):
    retriever = Retriever(embedder, ITEMS)
    result = retriever.search("um so new requests like join the running batch after each decode step, nobody waits", k=2)
    assert result.best.id == "batching"
    assert len({m.id for m in result.matches}) == len(result.matches)
    assert len(result.matches) == 2 and result.matches[0].score >= result.matches[1].score


def test_several_rows_per_item_are_pooled_into_one_match(embedder):
    retriever = Retriever(embedder, ITEMS)
    ranked = retriever.rank_all("keys and values of earlier tokens")
    assert [m.id for m in ranked].count("cache") == 1
    assert len(ranked) == 3 and ranked[0].id == "cache"


def test_empty_text_is_an_empty_off_topic_result(embedder):
    retriever = Retriever(embedder, ITEMS)
    assert retriever.search("") == EMPTY_RESULT
    assert retriever.search("   \n ") == EMPTY_RESULT
    assert EMPTY_RESULT.matches == () and EMPTY_RESULT.on_topic is False


def test_a_20000_character_text_is_scored_by_its_best_window(embedder):
    filler = "and then we went to the market and bought some apples and pears for the weekend. "
    text = filler * 130 + "readiness checks decide whether the pod gets traffic and liveness restarts it. " + filler * 130
    text = text[:20_000]
    assert len(text) == 20_000
    result = Retriever(embedder, ITEMS).search(text, k=1)
    assert result.best.id == "probes"


def test_threshold_decides_on_topic(embedder):
    strict = Retriever(embedder, ITEMS, threshold=0.99)
    lenient = Retriever(embedder, ITEMS, threshold=-1.0)
    text = "liveness restarts the container"
    assert strict.search(text).on_topic is False
    assert lenient.search(text).on_topic is True


def test_the_best_ranked_items_own_threshold_decides_on_topic(embedder):
    text = "liveness restarts the container"
    score = Retriever(embedder, ITEMS).search(text).similarity
    own = Retriever(embedder, ITEMS, threshold=-1.0, item_thresholds={"probes": score + 0.01, "cache": -1.0})
    result = own.search(text)
    assert result.best.id == "probes" and result.on_topic is False, "probes ranks first: its threshold decides"
    assert own.threshold_for("batching") == -1.0, "an item without its own threshold takes the default"
    others = Retriever(embedder, ITEMS, threshold=0.99, item_thresholds={"cache": 0.99, "probes": score - 0.01})
    assert others.search(text).on_topic is True


def test_a_track_threshold_applies_to_its_bites(mini_finder, mini_catalog, embedder, tmp_path):
    from coach.topics import TopicFinder

    tracks = {bite.track for bite in mini_catalog.bites.values()}
    strict = TopicFinder.build(mini_catalog, embedder, index_dir=tmp_path, track_thresholds={t: 0.99 for t in tracks})
    text = "the decoder keeps past keys and values so each step only computes the new token"
    assert mini_finder.find(text).on_topic is True
    assert strict.find(text).on_topic is False
    assert strict.retriever.threshold_for(next(iter(mini_catalog.bites))) == 0.99


def test_neighbours_exclude_the_item_itself(embedder):
    neighbours = Retriever(embedder, ITEMS).neighbours("cache", k=5)
    assert {m.id for m in neighbours} == {"batching", "probes"}
    with pytest.raises(KeyError):
        Retriever(embedder, ITEMS).neighbours("nope")


def test_no_items_is_an_error(embedder):
    with pytest.raises(ValueError):
        Retriever(embedder, [("a", "  ")])


class TestPersistence:
    def test_unchanged_items_load_without_encoding(self, embedder, tmp_path):
        first = CountingEmbedder(embedder)
        built = Retriever(first, ITEMS, index_dir=tmp_path)
        assert built.built and first.encoded == len(ITEMS)

        second = CountingEmbedder(embedder)
        loaded = Retriever(second, ITEMS, index_dir=tmp_path)
        assert loaded.built is False and second.encoded == 0
        assert loaded.search("liveness and readiness").best.id == "probes"

    def test_changed_items_rebuild(self, embedder, tmp_path):
        Retriever(embedder, ITEMS, index_dir=tmp_path)
        changed = ITEMS + [("quant", "Quantization rounds weights to int8 or int4 with a scale.")]
        counting = CountingEmbedder(embedder)
        rebuilt = Retriever(counting, changed, index_dir=tmp_path)
        assert rebuilt.built and counting.encoded == len(changed)
        assert rebuilt.search("we round the weights to four bit integers").best.id == "quant"
        # ...and the rebuilt one is what the next start loads.
        assert Retriever(CountingEmbedder(embedder), changed, index_dir=tmp_path).built is False

    def test_the_adapter_is_saved_with_the_index_and_loaded_not_refitted(self, embedder, tmp_path, adapter_fits):
        from retrieval.adapter import ADAPTER_FILE

        fits = adapter_fits
        first = Retriever(embedder, ITEMS, index_dir=tmp_path)
        assert fits == [1] and (tmp_path / ADAPTER_FILE).exists()
        again = Retriever(embedder, ITEMS, index_dir=tmp_path)
        assert fits == [1]
        text = "liveness and readiness"
        assert again.search(text) == first.search(text)
        # Other adapter settings are another fit.
        Retriever(embedder, ITEMS, index_dir=tmp_path, adapter_settings=AdapterSettings(steps=10))
        assert fits == [1, 1]

    def test_a_different_model_rebuilds(self, embedder, tmp_path):
        Retriever(embedder, ITEMS, index_dir=tmp_path)
        other_model = CountingEmbedder(embedder, fingerprint="another-model")
        assert Retriever(other_model, ITEMS, index_dir=tmp_path).built
        assert other_model.encoded == len(ITEMS)


def test_ranking_adds_the_weighted_bm25_term_and_on_topic_leaves_it_out(embedder):
    text = "readiness probes and liveness probes"
    no_adapter = AdapterSettings(steps=0)
    plain = Retriever(embedder, ITEMS, lexical_weight=0.0, adapter_settings=no_adapter).search(text)
    hybrid = Retriever(embedder, ITEMS, lexical_weight=0.25, adapter_settings=no_adapter).search(text)
    assert plain.best.id == hybrid.best.id == "probes"
    assert plain.best.score == pytest.approx(plain.similarity, abs=1e-3)
    # "probes" also has the best BM25 score, so it gains the full weight.
    assert hybrid.best.score == pytest.approx(hybrid.similarity + 0.25, abs=1e-3)
    assert hybrid.similarity == plain.similarity


def test_the_adapter_moves_ranking_and_on_topic_scores_alike(embedder):
    """On topic is read in the adapter's space, on the same score the ranking starts from."""
    text = "readiness probes and liveness probes"
    plain = Retriever(embedder, ITEMS, lexical_weight=0.0, adapter_settings=AdapterSettings(steps=0)).search(text)
    adapted = Retriever(embedder, ITEMS, lexical_weight=0.0).search(text)
    assert adapted.best.id == "probes"
    assert abs(adapted.best.score - plain.best.score) > 1e-3
    assert adapted.similarity == pytest.approx(adapted.best.score, abs=1e-3)
    assert adapted.similarity != pytest.approx(plain.similarity, abs=1e-4)


def test_an_exact_rare_word_can_outrank_a_vaguer_neighbour(embedder):
    items = [
        ("gunicorn", "Serving a model from a Flask app under gunicorn: each worker holds its own copy."),
        ("server", "A dedicated model server runs requests for many clients on one GPU."),
    ]
    text = "the gunicorn thing"
    assert Retriever(embedder, items, lexical_weight=1.0).search(text).best.id == "gunicorn"


def test_the_approximate_index_gives_the_same_answers_here(embedder, tmp_path):
    from retrieval import IndexSettings

    hnsw = Retriever(embedder, ITEMS, index_dir=tmp_path, index_settings=IndexSettings(exact_max=0))
    flat = Retriever(embedder, ITEMS)
    assert hnsw.index.kind == "hnsw" and flat.index.kind == "flat"
    for text in ("liveness restarts the pod", "keys and values of past tokens", "join the batch every step"):
        assert hnsw.search(text, k=2) == flat.search(text, k=2)
    # Reloaded from disk as HNSW too.
    assert Retriever(embedder, ITEMS, index_dir=tmp_path, index_settings=IndexSettings(exact_max=0)).index.kind == "hnsw"
