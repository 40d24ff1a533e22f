"""Token-level matching: the question's own words are no evidence of knowing a point."""

import numpy as np

from coach.grading.embedding_judge import idf_corpus
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
