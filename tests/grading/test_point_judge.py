"""The trained CPU judge (coach.grading.point_judge) with the shipped key-point model: it tells
a point from its negation and from the red flag, zeroes a list of terms and a neighbouring
concept but not a short strong answer, quotes the clause that supports each tick, and the
shipped file is small, stamped and current. Texts here are written for these tests; none is
an eval answer or a training text."""

from __future__ import annotations

import dataclasses
import json

import pytest

from coach.grading import point_training
from coach.grading.point_judge import PointJudge, clauses
from coach.grading.point_model import ARTIFACT, PointModel, read_stamp
from coach.grading.point_pool import InlinePointJudge
from coach.grading.quotes import find_quote
from retrieval import split_sentences
from tests.grading.conftest import make_grader

KV = "kv-cache"
STRONG_SHORT = ("Each new token only gets its own query, key and value computed; the keys and values of every "
                "earlier token are kept per layer, so attention reads them instead of recomputing the prefix. "
                "The cost is GPU memory that grows with the context length and the batch.")
MISCONCEPTION = ("The KV cache is basically a response cache: when a user sends a prompt we have seen before, the "
                 "server looks up the stored output and returns it straight away without running the model, which "
                 "is why repeated questions come back so fast, and it's keyed by a hash of the prompt.")
BUZZWORDS = "KV cache: keys, values, attention heads, memory, GPU, decode, latency, throughput, PagedAttention, HBM."
NEIGHBOUR = ("Speculative decoding runs a small draft model to propose a few tokens, then the large model checks "
             "them all in one forward pass and keeps the longest prefix it agrees with, so you get several tokens "
             "per expensive step without changing the output distribution.")


@pytest.fixture(scope="module")
def point_model():
    return PointModel(ARTIFACT)


@pytest.fixture(scope="module")
def judge(point_model, shipped_fit, embedder):
    return PointJudge(point_model, split_sentences, shipped_fit.point_thresholds, embedder=embedder)


@pytest.fixture
def trained_grader(shipped_catalog, shipped_topics, embedding_judge, judge):
    grader = make_grader(shipped_catalog, shipped_topics, embedding_judge)
    grader.point_judge = InlinePointJudge(judge)
    return grader


def test_the_shipped_model_is_one_small_stamped_file_matching_the_catalog(shipped_catalog):
    assert ARTIFACT.stat().st_size <= 50 * 1024 * 1024
    stamp = read_stamp(ARTIFACT)
    assert stamp["labels"] == ["covered", "partial", "missing", "wrong"] and stamp["seed"] == point_training.SEED
    assert point_training.stale_reasons(shipped_catalog) == [], "run `coach grader train`"


def test_every_shipped_bite_has_training_texts_and_a_bite_without_them_is_reported(shipped_catalog, tmp_path):
    assert point_training.uncovered_bites(shipped_catalog) == []
    rows = point_training.load_rows()
    kept = [row for row in rows if row["bite_id"] != KV][:500] + [row for row in rows if row["bite_id"] == KV][:5]
    (tmp_path / "some.jsonl").write_text("".join(json.dumps({k: v for k, v in row.items() if k != "_where"}) + "\n"
                                                 for row in kept))
    problems = point_training.uncovered_bites(shipped_catalog, tmp_path)
    assert any(f"'{KV}' has 5 labelled training texts" in p for p in problems)


def test_a_changed_key_point_makes_the_model_stale(shipped_catalog):
    bite = shipped_catalog.bites[KV]
    changed_point = bite.key_points[0].model_copy(update={"point": "The cache stores something else entirely."})
    changed_bite = bite.model_copy(update={"key_points": [changed_point, *bite.key_points[1:]]})
    changed = dataclasses.replace(shipped_catalog, bites={**shipped_catalog.bites, KV: changed_bite})
    assert point_training.stale_reasons(changed)


def test_a_point_is_told_from_its_negation(point_model, shipped_catalog):
    point = shipped_catalog.bites[KV].key_points[0].point  # what the cache stores
    right = "we keep the key and value vectors of all the earlier tokens, for every layer"
    negated = "the cache keeps the final hidden states and output probabilities, not the keys and values"
    probs = point_model.probabilities([(point, right), (point, negated)])
    covered, wrong = 0, 3
    assert probs[0, covered] > probs[0, wrong] and probs[1, wrong] + probs[1, 2] > probs[1, covered]


async def test_every_tick_is_quoted_from_the_answer(trained_grader):
    grade = await trained_grader.grade(STRONG_SHORT, KV)
    assert grade.grader == "trained" and grade.score >= 1
    ticked = [kp for kp in grade.key_points if kp.status in ("covered", "partial")]
    assert ticked and all(kp.evidence and find_quote(kp.evidence, STRONG_SHORT) for kp in ticked)


async def test_a_confident_misconception_earns_at_most_one(trained_grader):
    grade = await trained_grader.grade(MISCONCEPTION, KV)
    assert grade.score <= 1


async def test_a_list_of_terms_earns_nothing(trained_grader):
    grade = await trained_grader.grade(BUZZWORDS, KV)
    assert grade.score == 0 and grade.keyword_soup and "list of terms" in grade.feedback


def test_evidence_is_cut_to_a_clause_only_when_the_clause_supports_it():
    assert clauses("we keep them, so each step is cheap, because the prefix is fixed") == [
        "we keep them", "so each step is cheap", "because the prefix is fixed"]
