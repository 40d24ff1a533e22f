from retrieval.lexical import BM25Ranker, reciprocal_rank_fusion, tokenize


def test_tokenize_lowercases_and_drops_fillers():
    assert tokenize("Um, so the KV-cache is LIKE basically 2x") == ["kv", "cache", "2x"]


def test_bm25_groups_texts_per_id_and_ranks_exact_words():
    ranker = BM25Ranker([
        ("serve", "gunicorn workers each load a copy of the model"),
        ("serve", "flask is fine for a prototype"),
        ("probe", "readiness and liveness probes in kubernetes"),
        ("cache", "keys and values of past tokens"),
    ])
    ranked = ranker.rank("why does every gunicorn worker hold its own model")
    assert [i for i, _ in ranked][0] == "serve"
    assert len(ranked) == 3 and ranked[0][1] > ranked[1][1]
    assert all(score == 0 for _, score in ranker.rank("zebra"))


def test_reciprocal_rank_fusion_rewards_agreement():
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a", "c"], ["b", "c", "a"]])
    assert [i for i, _ in fused] == ["b", "a", "c"]
    assert abs(fused[0][1] - (2 / 61 + 1 / 62)) < 1e-12
