"""Token-level matching: the question's own words are no evidence of knowing a point; and the
units an answer is read in (pieces, and the pairs whose word pieces are their two pieces')."""

import numpy as np

from coach.grading.embedding_judge import answer_pieces, idf_corpus, pair_tokens
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
    _, tokens = embedder.encode_with_tokens(pieces)
    pairs = pair_tokens(tokens)
    assert len(pairs) == 2
    # The word pieces of a pair are its two sentences' own, in order.
    assert pairs[0][0] == tokens[0][0] + tokens[1][0]
    assert np.array_equal(pairs[1][1], np.vstack([tokens[1][1], tokens[2][1]]))


def test_one_piece_has_no_pairs(embedder):
    _, tokens = embedder.encode_with_tokens(["Batching shares the weights' memory reads."])
    assert pair_tokens(tokens) == []


def test_a_long_dictated_sentence_is_read_in_overlapping_windows():
    sentence = " ".join(f"word{i}" for i in range(45))  # dictated: one long run-on sentence
    pieces = answer_pieces([sentence])
    assert len(pieces) > 2 and all(piece in sentence for piece in pieces)
    assert all(len(piece.split()) <= 20 for piece in pieces)
    assert pieces[0].split()[10:] == pieces[1].split()[:10]  # each window shares half with the next
