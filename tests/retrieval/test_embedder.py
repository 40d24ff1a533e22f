"""One forward pass gives both readings a grading needs (retrieval/embedder.py)."""

import numpy as np
import pytest

TEXTS = [
    "so um the kv cache keeps keys and values",
    "Paged attention hands out cache blocks on demand, so a long request and a short one share memory "
    "without reserving the maximum length up front.",
    "x",
]


def test_one_pass_gives_the_sentence_vectors_of_encode(embedder):
    vectors, _ = embedder.encode_with_tokens(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dim)
    assert np.allclose(vectors, embedder.encode(TEXTS), atol=1e-5)


def test_each_text_gets_its_own_word_pieces_whatever_it_is_batched_with(embedder):
    _, together = embedder.encode_with_tokens(TEXTS)
    for text, (pieces, vectors) in zip(TEXTS, together):
        (alone_pieces, alone), = embedder.token_vectors([text])
        assert pieces == alone_pieces == embedder.word_pieces(text)  # padding and [CLS]/[SEP] dropped
        # Rows are the same up to rounding: exact in fp32; bf16 rounds a padded batch differently.
        assert np.allclose(vectors, alone, atol=1e-4 if embedder.precision == "fp32" else 5e-3)
        assert np.min(np.sum(vectors * alone, axis=1)) > 0.9999
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_text_no_vectors(embedder):
    vectors, tokens = embedder.encode_with_tokens([])
    assert vectors.shape == (0, embedder.dim) and tokens == []


def test_bf16_reads_as_fp32_does(embedder):
    """bf16 is what `auto` runs on a CPU with bf16 instructions: its vectors must be fp32's,
    to rounding, or the fitted thresholds would no longer mean what they were fitted to."""
    from retrieval import Embedder

    other = Embedder(precision="fp32" if embedder.precision == "bf16" else "bf16")
    mine, theirs = embedder.encode_with_tokens(TEXTS), other.encode_with_tokens(TEXTS)
    assert np.min(np.sum(mine[0] * theirs[0], axis=1)) > 0.999
    for (pieces, vectors), (other_pieces, other_vectors) in zip(mine[1], theirs[1]):
        assert pieces == other_pieces
        assert np.min(np.sum(vectors * other_vectors, axis=1)) > 0.995
    assert other.fingerprint() != embedder.fingerprint(), "an index built in one precision is not reused by the other"


def test_auto_is_bf16_only_where_the_cpu_has_it(monkeypatch):
    from retrieval import embedder as module

    monkeypatch.setattr(module, "native_bf16", lambda: False)
    assert module.resolve_precision("auto") == "fp32"
    monkeypatch.setattr(module, "native_bf16", lambda: True)
    assert module.resolve_precision("auto") == "bf16"
    assert module.resolve_precision("fp32") == "fp32"
    with pytest.raises(ValueError, match="precision"):
        module.resolve_precision("int4")


def test_options_rebuild_the_same_embedder(embedder):
    from retrieval import Embedder

    again = Embedder(**embedder.options)
    assert again.precision == embedder.precision and again.model_path == embedder.model_path
    assert np.array_equal(again.encode(TEXTS), embedder.encode(TEXTS))
