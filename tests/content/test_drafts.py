"""The LLM track waiting in content/drafts/ (issue #29, content/drafts/README.md) stays valid
beside the live catalog until it goes live: schema, the semantic checks (balance across A-D,
lengths, links), no id shared with the live tracks, and the staged relabelling of the
retrieval dev set still names the texts it relabels."""

import json
import os
from pathlib import Path

import pytest

from content.loader import TRACKS_DIR
from content.validate import check

DRAFTS = Path(__file__).parents[2] / "content" / "drafts"


@pytest.fixture(scope="module")
def together(tmp_path_factory):
    root = tmp_path_factory.mktemp("with_drafts")
    for track in TRACKS_DIR.iterdir():
        if track.is_dir():
            os.symlink(track, root / track.name)
    os.symlink(DRAFTS / "llm", root / "llm")
    return check(root)


def test_the_drafted_track_passes_every_content_check_beside_the_live_catalog(together):
    catalog, problems = together
    assert [str(p) for p in problems] == []
    track = catalog.tracks["llm"]
    assert len(track.bites) >= 30 and len(track.questions) >= 90
    assert all(len(catalog.questions_for(b.id)) >= 3 for b in track.bites)


def test_the_drafted_track_links_to_the_inference_bites_it_builds_on(together):
    catalog, _ = together
    llm = {b.id for b in catalog.tracks["llm"].bites}
    outward = {r for b in catalog.tracks["llm"].bites for r in b.related if r not in llm}
    assert outward, "the new bites link to the Inference bites they build on"


def test_the_staged_relabelling_names_off_topic_dev_texts_and_drafted_bites(together):
    catalog, _ = together
    dev = (Path(__file__).parents[1] / "data" / "retrieval_dev.jsonl").read_text().splitlines()
    for line in (DRAFTS / "retrieval_dev_relabel.jsonl").read_text().splitlines():
        change = json.loads(line)
        row = json.loads(dev[change["line"] - 1])
        assert row == {"text": change["text"], "bite_id": None}
        assert catalog.bites[change["bite_id"]].track == "llm"


def test_the_staged_back_links_join_live_inference_bites_to_drafted_bites_that_link_to_them(together):
    import yaml

    catalog, _ = together
    backlinks = yaml.safe_load((DRAFTS / "inference_backlinks.yaml").read_text())
    for inference_id, llm_ids in backlinks.items():
        assert catalog.bites[inference_id].track == "inference"
        for llm_id in llm_ids:
            assert inference_id in catalog.bites[llm_id].related


def test_the_staged_training_texts_cover_every_drafted_bite_and_fit_its_key_points(together):
    from coach.grading.point_training import check_rows, load_rows

    catalog, _ = together
    rows = load_rows(DRAFTS / "judge")
    assert check_rows(rows, catalog) == []
    per_bite = {b.id: 0 for b in catalog.tracks["llm"].bites}
    for row in rows:
        per_bite[row["bite_id"]] += 1
    # Each text is labelled against every key point of its bite: at least 20 labelled pairs per point.
    assert all(n >= 20 for n in per_bite.values())
    assert {r["writer"] for r in rows}.isdisjoint({r["writer"] for r in load_rows()}), "new writers"


def test_the_llm_tracks_grading_test_set_is_frozen_and_labels_the_drafted_bites(together):
    import hashlib
    from collections import Counter

    catalog, _ = together
    data = Path(__file__).parents[1] / "data"
    path = data / "grading_blind_llm_test.jsonl"
    recorded = dict(line.split()[::-1] for line in (data / "grading_blind.sha256").read_text().splitlines() if line)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[path.name], "a changed test set is a new one"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        bite = catalog.bites[row["bite_id"]]
        assert bite.track == "llm" and row["score"] in range(5)
        assert len(row["key_points"]) == len(bite.key_points)
    kinds = Counter(row["kind"] for row in rows)
    assert len(rows) >= 150 and len(kinds) == 7 and len(set(kinds.values())) == 1
