"""One forward pass gives both readings a grading needs (retrieval/embedder.py)."""

import numpy as np

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
        assert np.allclose(vectors, alone, atol=1e-4)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_text_no_vectors(embedder):
    vectors, tokens = embedder.encode_with_tokens([])
    assert vectors.shape == (0, embedder.dim) and tokens == []
