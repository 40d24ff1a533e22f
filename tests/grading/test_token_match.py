"""Token-level matching: the question's own words are no evidence of knowing a point; and the
units an answer is read in (pieces and the pairs composed from them)."""

import numpy as np

from coach.grading.embedding_judge import answer_pieces, answer_units, composed_pairs, idf_corpus
from coach.grading.token_match import TokenMatcher


def test_the_question_s_word_pieces_weigh_nothing(embedder, shipped_catalog):
    matcher = TokenMatcher(embedder, idf_corpus(shipped_catalog))
    point = "Decode reads every weight for each new token, so it is bound by memory bandwidth."
    (_, plain), = matcher.encode_reference([point])
    (_, discounted), = matcher.encode_reference([point], given="Why is decode memory-bound?")
    pieces = embedder.token_vectors([point])[0][0]
    asked = set(embedder.word_pieces("why is decode memory-bound?"))
    given = [i for i, piece in enumerate(pieces) if piece in asked]
    others = [i for i, piece in enumerate(pieces) if piece not in asked]
    assert len(given) >= 3 and others
    assert all(discounted[i] == 0 and plain[i] > 0 for i in given)
    assert np.allclose(discounted[others], plain[others])


def test_a_point_made_only_of_question_words_keeps_its_weights(embedder, shipped_catalog):
    matcher = TokenMatcher(embedder, idf_corpus(shipped_catalog))
    (_, weights), = matcher.encode_reference(["the kv cache"], given="What is the KV cache?")
    assert weights.sum() > 0


def test_restating_the_question_credits_no_key_point(embedding_judge, shipped_catalog):
    bite = shipped_catalog.bites["prefill-vs-decode"]
    verdicts = embedding_judge.judge(bite, bite.prompt)
    assert all(kp.status == "missing" for kp in verdicts.key_points), [kp.status for kp in verdicts.key_points]


def test_a_pair_of_sentences_is_read_from_its_two_pieces(embedder):
    pieces = ["The KV cache keeps the keys and values of every earlier token.",
              "So each decode step only computes the new token's projections.",
              "Memory grows with the sequence length and the batch."]
    vectors, tokens = embedder.encode_with_tokens(pieces)
    pairs, pair_tokens = composed_pairs(vectors, tokens)
    assert pairs.shape == (2, vectors.shape[1])
    assert np.allclose(np.linalg.norm(pairs, axis=1), 1.0, atol=1e-5)
    # The word pieces of a pair are its two sentences' own, in order.
    assert pair_tokens[0][0] == tokens[0][0] + tokens[1][0]
    assert np.array_equal(pair_tokens[1][1], np.vstack([tokens[1][1], tokens[2][1]]))
    # Close to what encoding the joined text gives, and nearer its own sentences than the third.
    encoded = embedder.encode(answer_units(pieces)[len(pieces):])
    assert (pairs * encoded).sum(axis=1).min() > 0.85
    assert pairs[0] @ vectors[0] > pairs[0] @ vectors[2] and pairs[0] @ vectors[1] > pairs[0] @ vectors[2]


def test_one_piece_has_no_pairs(embedder):
    vectors, tokens = embedder.encode_with_tokens(["Batching shares the weights' memory reads."])
    pairs, pair_tokens = composed_pairs(vectors, tokens)
    assert pairs.shape == (0, vectors.shape[1]) and pair_tokens == []


def test_the_pair_of_two_windows_of_one_long_sentence_is_a_span_of_it():
    sentence = " ".join(f"word{i}" for i in range(45))  # dictated: one long run-on sentence
    pieces = answer_pieces([sentence])
    assert len(pieces) > 2
    pairs = answer_units(pieces)[len(pieces):]
    assert pairs and all(pair in sentence for pair in pairs)
    assert answer_units(["Prefill is compute bound.", "Decode is memory bound."])[-1] == (
        "Prefill is compute bound. Decode is memory bound.")
