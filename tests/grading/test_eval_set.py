"""The labelled eval set against the shipped track: well-formed, big enough, aligned
with the bites' current key points (content edits that add or drop a key point must
be reflected in the labels), and internally consistent."""

from collections import Counter

from coach.grading.eval import load_eval_set
from coach.grading.scoring import CALIBRATED_THRESHOLDS, score_answer

KINDS = {"strong", "partial", "vague", "wrong", "red_flag", "rambling", "keyword_soup", "off_topic", "injection"}


def test_size_and_coverage():
    rows = load_eval_set("all")
    assert len(rows) >= 100
    assert len({r["bite_id"] for r in rows if r["bite_id"]}) >= 15
    assert set(Counter(r["kind"] for r in rows)) == KINDS
    for split in ("dev", "test"):
        kinds = {r["kind"] for r in load_eval_set(split)}
        assert kinds == KINDS, f"{split} lacks {KINDS - kinds}"


def test_every_line_is_well_formed_and_matches_its_bite(shipped_catalog):
    for row in load_eval_set("all"):
        assert row["kind"] in KINDS and row["answer"].strip()
        if row["kind"] == "off_topic":
            assert row["bite_id"] is None and row["score"] is None
            continue
        bite = shipped_catalog.bites[row["bite_id"]]
        assert row["score"] in range(5)
        assert len(row["key_points"]) == len(bite.key_points), f"relabel {bite.id}: its key points changed"
        assert set(row["key_points"]) <= {"covered", "partial", "missing", "wrong"}
        assert row["red_flag"] == (row["kind"] == "red_flag")
        assert row["injection"] == (row["kind"] == "injection")


def test_hand_scores_follow_the_score_function_on_the_hand_verdicts():
    """The labelling rule (tests/data/README-grading.md): scores and key-point labels agree
    under the calibrated cut-offs, except the rule's one documented exception."""
    mismatches = []
    for row in load_eval_set("all"):
        if row["bite_id"] is None:
            continue
        computed = score_answer(
            row["key_points"], red_flag=row["red_flag"], injection=row["injection"],
            keyword_soup=row["kind"] == "keyword_soup", thresholds=CALIBRATED_THRESHOLDS,
        )
        if computed != row["score"]:
            mismatches.append((row["bite_id"], row["kind"], row["score"], computed))
    assert len(mismatches) <= 2, mismatches
