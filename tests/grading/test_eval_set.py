"""The blind eval sets (tests/data/README-grading.md): well-formed, aligned with the
bites' current key points, split by bite, untouched since they were frozen, and free of
the catalog's own texts; and the fitted grader is current with them and the catalog.

These tests check the files' integrity only: no figure from the test split is computed
or printed here (figures on test come only from `python -m bench.grading --test`)."""

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from bot.cli.fit import FOLLOWUP_DEV, embedder_name
from coach.grading.eval import load_eval_set
from coach.grading.fit import load_fit, stale_reasons

DATA = Path(__file__).resolve().parents[1] / "data"
BLIND = {"dev": DATA / "grading_blind_dev.jsonl", "test": DATA / "grading_blind_test.jsonl"}
# Earlier test sets: each read once as test, then retired; v3 and v4 then served as design data
# (docs/bench/grading_test_log.md). None is read as test again. The first dev split was labelled
# on the scale before issue #27 (a wrong point capped at 2) and is kept as design data.
RETIRED = [DATA / "grading_blind_test_v1.jsonl", DATA / "grading_blind_test_v2.jsonl", DATA / "grading_blind_test_v3.jsonl",
           DATA / "grading_blind_test_v4.jsonl", DATA / "grading_blind_test_v5.jsonl", DATA / "grading_blind_test_v6.jsonl"]
OLD_DEV = DATA / "grading_blind_dev_v1.jsonl"
PROBES = {"read v11": DATA / "injection_probe_v11.jsonl", "read v10": DATA / "injection_probe_v10.jsonl",
          "read v9": DATA / "injection_probe_v9.jsonl", "development": DATA / "injection_probe_dev.jsonl",
          "read": DATA / "injection_probe_v4.jsonl", "read v5": DATA / "injection_probe_v5.jsonl",
          "read v6": DATA / "injection_probe_v6.jsonl", "read v7": DATA / "injection_probe_v7.jsonl",
          "read v8": DATA / "injection_probe_v8.jsonl"}
KINDS = {"strong_short", "strong_thorough", "gap", "buzzword", "misconception", "neighbour", "mixed"}
MANIFEST = DATA / "grading_blind.sha256"
STATUSES = {"covered", "partial", "missing", "wrong"}


@pytest.fixture(scope="module")
def blind():
    return {split: load_eval_set(path, split) for split, path in BLIND.items()}


def test_files_match_their_frozen_hashes():
    recorded = dict(line.split()[::-1] for line in MANIFEST.read_text().splitlines() if line.strip())
    for path in (*BLIND.values(), *RETIRED, OLD_DEV, *PROBES.values()):
        assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[path.name], (
            f"{path.name} changed after it was frozen: a changed test set is a fresh test set (README-grading.md)")


def test_rows_are_well_formed_and_match_their_bites(blind, shipped_catalog):
    for rows in blind.values():
        for row in rows:
            bite = shipped_catalog.bites[row["bite_id"]]
            assert row["answer"].strip() and row["score"] in range(5)
            assert len(row["key_points"]) == len(bite.key_points), f"relabel {row['id']}: {bite.id}'s key points changed"
            assert set(row["key_points"]) <= STATUSES
            assert isinstance(row["purpose"], bool) and isinstance(row["red_flag"], bool)
            assert isinstance(row["injection"], bool)
            assert isinstance(row["mechanism"], bool) and isinstance(row["on_topic"], bool)
            assert set(row["labels"]) == {"a", "b"}  # both graders' own labels are kept


def test_size_range_and_split_by_bite(blind):
    rows = blind["dev"] + blind["test"]
    assert len(blind["dev"]) >= 300 and len(blind["test"]) >= 300
    assert len({r["bite_id"] for r in rows}) >= 30
    assert not {r["bite_id"] for r in blind["dev"]} & {r["bite_id"] for r in blind["test"]}
    retired = [row for path in RETIRED for row in load_eval_set(path)]
    assert not {r["bite_id"] for r in blind["dev"]} & {r["bite_id"] for r in retired}
    assert len({r["id"] for r in retired + rows}) == len(retired) + len(rows)
    assert len({r["id"] for r in rows}) == len(rows)
    for split, split_rows in blind.items():
        # Whole range in each split, with mistakes, and the seven kinds in equal shares.
        assert set(Counter(r["score"] for r in split_rows)) == set(range(5)), split
        assert any(r["red_flag"] for r in split_rows), split
        kinds = Counter(r["kind"] for r in split_rows)
        assert set(kinds) == KINDS and max(kinds.values()) == min(kinds.values()), (split, kinds)


def test_the_probes_hold_attempts_and_honest_look_alikes_on_known_bites(shipped_catalog):
    for name, path in PROBES.items():
        rows = load_eval_set(path)
        attempts = [r for r in rows if r["injection"]]
        assert len(attempts) >= 60 and len(rows) - len(attempts) >= 150, name
        assert all(r["bite_id"] in shipped_catalog.bites for r in rows), name
    latest = {r["answer"] for r in load_eval_set(PROBES["read v11"])}  # written blind, after every other was read
    for name in ("development", "read", "read v5", "read v6", "read v7", "read v8", "read v9", "read v10"):
        assert not latest & {r["answer"] for r in load_eval_set(PROBES[name])}, name


def test_no_catalog_text_is_an_eval_answer(blind, shipped_catalog):
    catalog_texts = {
        " ".join(t.lower().split())
        for bite in shipped_catalog.bites.values()
        for t in (*bite.sample_answers, *bite.phrasings, *bite.red_flag_phrasings, bite.model_answer)
    }
    for rows in blind.values():
        assert not [r["id"] for r in rows if " ".join(r["answer"].lower().split()) in catalog_texts]


def test_the_shipped_fit_is_current(shipped_catalog, embedder):
    reasons = stale_reasons(load_fit(), shipped_catalog, BLIND["dev"], embedder_name(embedder), FOLLOWUP_DEV)
    assert not reasons, f"{reasons}: run `coach grader fit`"
    assert load_fit().followup_thresholds is not None, "the follow-up reader is fitted with the key-point model"


def test_stale_fit_is_detected(shipped_catalog, tmp_path):
    fit = load_fit()
    changed = tmp_path / "dev.jsonl"
    changed.write_text(BLIND["dev"].read_text() + json.dumps({"edited": True}) + "\n")
    assert stale_reasons(fit, shipped_catalog, changed)
    assert stale_reasons(fit.model_copy(update={"fitted_on": {**fit.fitted_on, "catalog": "0" * 16}}), shipped_catalog, None)
    edited = tmp_path / "followups.jsonl"
    edited.write_text(FOLLOWUP_DEV[0].read_text() + json.dumps({"edited": True}) + "\n")
    assert stale_reasons(fit, shipped_catalog, None, followup_dev=(edited, FOLLOWUP_DEV[1]))
