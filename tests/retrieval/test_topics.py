"""coach.topics over the fixture catalog and, where the claim is about the
shipped content, over the shipped track."""

import json
from pathlib import Path

import pytest

from coach.topics import RECIPES, TopicFinder, bite_items
from content import default_catalog

DATA = Path(__file__).resolve().parents[1] / "data"

# Clearly about nothing in the track; the shipped threshold must reject every one.
OFF_TOPIC = [
    "",
    "asdf",
    "asdf jkl qwerty",
    "hello there, how's it going",
    "what's the weather like in paris this weekend",
    "boil the pasta in salted water for nine minutes then drain it",
    "i forgot my umbrella at the train station",
    "the cat is sleeping on the sofa again",
    "who won the match last night",
    "please remind me to call my mother",
]


def test_find_adds_titles_and_serializes(mini_finder):
    result = mini_finder.find("so like, we round the weights down to int four with a scale per group", k=2)
    assert result.on_topic
    assert result.best.bite_id == "quantization" and result.best.title == "Weight quantization"
    payload = result.to_json()
    assert set(payload) == {"results", "on_topic"}
    assert set(payload["results"][0]) == {"bite_id", "title", "score"}
    assert len(payload["results"]) == 2
    json.dumps(payload)


def test_empty_text_gives_a_clear_empty_result(mini_finder):
    assert mini_finder.find("").to_json() == {"results": [], "on_topic": False}


def test_20000_characters_do_not_crash(mini_finder):
    text = ("the pod is alive but not ready while the model weights load " * 400)[:20_000]
    result = mini_finder.find(text)
    assert result.best.bite_id == "probes"


def test_related_bites(mini_finder):
    related = mini_finder.related("cache", k=3)
    assert len(related) == 3 and "cache" not in {h.bite_id for h in related}
    with pytest.raises(KeyError):
        mini_finder.related("no-such-bite")


def test_the_embedder_is_shared(mini_finder, embedder):
    assert mini_finder.embedder is embedder


def test_recipes_give_every_bite_at_least_one_text(mini_catalog):
    for name in RECIPES:
        items = bite_items(mini_catalog.bites.values(), name)
        assert {bite_id for bite_id, _ in items} == set(mini_catalog.bites)
        assert all(text.strip() for _, text in items)


def test_from_settings_persists_the_index_under_data_dir(embedder, mini_catalog, tmp_path):
    from coach.config import load_settings

    settings = load_settings(data_dir=tmp_path)
    finder = TopicFinder.from_settings(settings, mini_catalog, embedder=embedder)
    assert finder.retriever.built
    assert (tmp_path / "index" / "meta.json").exists()
    assert TopicFinder.from_settings(settings, mini_catalog, embedder=embedder).retriever.built is False


@pytest.mark.parametrize("text", OFF_TOPIC)
def test_shipped_threshold_rejects_off_topic_text(shipped_topics, text):
    assert shipped_topics.find(text).on_topic is False


def test_shipped_track_on_topic_answers_are_accepted_and_found(shipped_topics):
    """Regression floor on the dev split (the frozen test split is only reported, by the benchmark)."""
    rows = [json.loads(line) for line in (DATA / "retrieval_dev.jsonl").read_text().splitlines()]
    on = [r for r in rows if r["bite_id"] in shipped_topics.catalog.bites]
    assert len(on) >= 30
    results = [shipped_topics.find(r["text"], k=3) for r in on]
    top1 = sum(res.best.bite_id == r["bite_id"] for res, r in zip(results, on)) / len(on)
    accepted = sum(res.on_topic for res in results) / len(on)
    assert top1 >= 0.9, top1
    assert accepted >= 0.95, accepted


def test_labelled_sets_cover_every_shipped_bite():
    labelled = set()
    for name in ("dev", "test"):
        for line in (DATA / f"retrieval_{name}.jsonl").read_text().splitlines():
            labelled.add(json.loads(line)["bite_id"])
    assert set(default_catalog().bites) <= labelled


@pytest.mark.parametrize(
    ("text", "bite_id"),
    [("kv cache", "kv-cache"), ("The KV cache", "kv-cache"), ("kv-cache-sizing", "kv-cache-sizing"),
     ("dynamic batching", "dynamic-batching"), ("Prefill vs decode", "prefill-vs-decode")],
)
def test_a_bite_named_by_id_or_title_comes_first(shipped_topics, text, bite_id):
    result = shipped_topics.find(text, k=3)
    assert result.best.bite_id == bite_id and result.on_topic
    assert len(result.results) == 3 and len({h.bite_id for h in result.results}) == 3


def test_name_lookup_ignores_case_punctuation_and_articles(mini_finder):
    assert mini_finder.find("key-value CACHE", k=2).best.bite_id == "cache"
    assert mini_finder.find("readiness and liveness probes", k=1).best.bite_id == "probes"
