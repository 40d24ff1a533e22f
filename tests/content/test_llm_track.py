"""The LLM Fundamentals & Training track (issue #29) as it ships: its size, the links that
join it to the Inference track in both directions, the training texts its key points are
learned from, the five retrieval dev texts relabelled onto it, and its frozen grading test set."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from content import default_catalog

DATA = Path(__file__).parents[1] / "data"
# Dev texts labelled off-topic while only the Inference track was live, relabelled by two blind
# labellers when this track went live (tests/data/README-retrieval.md).
RELABELLED = {307: "loss-spikes-clipping", 350: "transformer-block-normalization",
              435: "adamw-optimizer", 560: "adamw-optimizer", 658: "adamw-optimizer"}


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def test_the_track_has_a_full_syllabus_with_three_questions_per_bite(catalog):
    track = catalog.tracks["llm"]
    assert len(track.bites) >= 30 and len(track.questions) >= 90
    assert all(len(catalog.questions_for(b.id)) >= 3 for b in track.bites)
    # The two Inference bites that belong to this syllabus moved, keeping their ids.
    assert {"maximum-likelihood", "knowledge-distillation"} <= {b.id for b in track.bites}


def test_links_between_the_tracks_go_both_ways(catalog):
    across = [(b.id, r) for b in catalog.bites.values() for r in b.related if catalog.bites[r].track != b.track]
    assert len({b for b, _ in across if catalog.bites[b].track == "llm"}) >= 10
    assert [(a, b) for a, b in across if a not in catalog.bites[b].related] == []


def test_every_bite_of_the_track_has_training_texts_from_writers_of_its_own(catalog):
    from coach.grading.point_training import load_rows

    rows = load_rows()
    llm = {b.id for b in catalog.tracks["llm"].bites}
    per_bite = Counter(r["bite_id"] for r in rows if r["bite_id"] in llm)
    assert set(per_bite) == llm and min(per_bite.values()) >= 20
    new = {b.id for b in catalog.tracks["llm"].bites} - {"maximum-likelihood", "knowledge-distillation"}
    new_writers = {r["writer"] for r in rows if r["bite_id"] in new}
    old_writers = {r["writer"] for r in rows if r["bite_id"] not in llm}
    assert new_writers and new_writers.isdisjoint(old_writers)


def test_the_relabelled_dev_texts_name_bites_of_the_track(catalog):
    dev = (DATA / "retrieval_dev.jsonl").read_text().splitlines()
    for line, bite_id in RELABELLED.items():
        assert json.loads(dev[line - 1])["bite_id"] == bite_id
        assert catalog.bites[bite_id].track == "llm"


@pytest.mark.parametrize("name", ["grading_blind_llm_test.jsonl", "grading_blind_llm_test_v2.jsonl"])
def test_the_tracks_grading_test_sets_are_frozen_and_label_its_bites(catalog, name):
    """The first set was read once (read 13) and retired; v2 was written after that read."""
    path = DATA / name
    recorded = dict(line.split()[::-1] for line in (DATA / "grading_blind.sha256").read_text().splitlines() if line)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[path.name], "a changed test set is a new one"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        bite = catalog.bites[row["bite_id"]]
        assert bite.track == "llm" and row["score"] in range(5)
        assert len(row["key_points"]) == len(bite.key_points)
    kinds = Counter(row["kind"] for row in rows)
    assert len(rows) >= 150 and len(kinds) == 7 and len(set(kinds.values())) == 1


# The held-out retrieval sets written after the first ones were read and joined dev
# (tests/data/README-retrieval.md); a changed file is a new set.
RETRIEVAL_HELD_OUT = {
    "retrieval_llm_test_v2.jsonl": "366fbecdc63bab22942b5bc82c9d387e7f21edf1759a7017f9142d7392cf6503",
    "retrieval_cross_track_v2.jsonl": "8b46ae08cc71e8185118909d743a220850bbe20d5b1b9fafb61e1a2d4704030c",
    # Written after v2 was read; read once after the third refit.
    "retrieval_llm_test_v3.jsonl": "58263a8f33899cd944082d3508baaef69f10c93fe60b4f381f0c98044aa90332",
    "retrieval_cross_track_v3.jsonl": "074d3014ae4d3ade2d5648a1487b47cb5435dc10d41aea7cffd324fb6b4b71c2",
    # Written after v3 was read; read once after the fourth refit (2026-12-04), spent.
    "retrieval_llm_test_v4.jsonl": "600d207fb9eba7e0a0fe7c837b1f6cc88e69b226aca58b622d18016522dba4ba",
    "retrieval_cross_track_v4.jsonl": "6cfbbb4a8554b1c5c531150cebcdd726f1a7f11f5e5fc7cda0b6d95c84c5b465",
    # Written after v4 was read (2026-12-04, new helpers, titles only); read once after the fifth refit, spent.
    "retrieval_llm_test_v5.jsonl": "3eb7314bbe575e2570a01ac21130da603be434d4cb7fb72f90652c6344c8050d",
    "retrieval_cross_track_v5.jsonl": "1f736023a8867b9a43e97868279266340750a307dc5164031a491ff5df938a5d",
    # Written after v5 was read (2026-12-04, new helpers, titles only); read once after the sixth refit, spent.
    "retrieval_llm_test_v6.jsonl": "3d460c96ac18482be038fc89a4823d2fb8b86f7f268892ea623d5284d5633cf5",
    "retrieval_cross_track_v6.jsonl": "9a62840df4da8f98042ccc393990ca9ddf35fe2ba2a0947ea2608593ebdbf4a4",
    # Written after v6 was read (2026-12-04, new helpers, titles only); read once after the seventh refit.
    "retrieval_llm_test_v7.jsonl": "36822f1bc247ba5a80d359dfba2c5da430bf156792d6c7b446e12d03c3649a19",
    "retrieval_cross_track_v7.jsonl": "59906e1460e5195616b65a3b7b57e6561e0e03afb52afbb8b7915c5d386bed73",
}


@pytest.mark.parametrize("name", sorted(RETRIEVAL_HELD_OUT))
def test_the_held_out_retrieval_sets_are_frozen_and_name_live_bites(catalog, name):
    path = DATA / name
    assert hashlib.sha256(path.read_bytes()).hexdigest() == RETRIEVAL_HELD_OUT[name], "a changed test set is a new one"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    on = [r["bite_id"] for r in rows if r["bite_id"]]
    assert len(on) >= 60 and set(on) <= set(catalog.bites)
    tracks = Counter(catalog.bites[b].track for b in on)
    if "cross" in name:  # both tracks, on the topics they share words with
        assert min(tracks["llm"], tracks["inference"]) >= 25
    else:  # every bite of the track, twice
        assert set(tracks) == {"llm"} and set(Counter(on).values()) == {2}
        assert set(on) == {b.id for b in catalog.tracks["llm"].bites}


def test_the_spent_retrieval_sets_joined_dev():
    """The first three rounds were appended to retrieval_dev.jsonl; later ones join dev by name
    (bench.retrieval.SPENT_HELD_OUT), leaving the injection reader's training file as it is."""
    from bench.retrieval import SPENT_HELD_OUT

    dev = set((DATA / "retrieval_dev.jsonl").read_text().splitlines())
    for name in ("retrieval_llm_test.jsonl", "retrieval_cross_track.jsonl",
                 "retrieval_llm_test_v2.jsonl", "retrieval_cross_track_v2.jsonl",
                 "retrieval_llm_test_v3.jsonl", "retrieval_cross_track_v3.jsonl"):
        assert set((DATA / name).read_text().splitlines()) <= dev
    assert {"llm_test_v4", "cross_track_v4"} <= set(SPENT_HELD_OUT)
    assert all(f"retrieval_{name}.jsonl" in RETRIEVAL_HELD_OUT for name in SPENT_HELD_OUT), "frozen sets only"
